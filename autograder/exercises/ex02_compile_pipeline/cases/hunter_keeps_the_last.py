# outcome: rejected | kind: wrong | checks: hunter_node | reason: the first node whose output is not finite | device: any
# Known wrong: watches every node but overwrites what it found, so it keeps the last non-finite node, not the first:
# a NaN flows on through the nodes after the one that made it.
import torch


class NanHunter:
    def __init__(self):
        self.first, self.count = None, 0

    def __call__(self, gm, example_inputs):
        index, self.count = self.count, self.count + 1
        hunter = self

        class Watch(torch.fx.Interpreter):
            def run_node(self, n):
                out = super().run_node(n)
                if isinstance(out, torch.Tensor) and n.op != "placeholder" and not bool(torch.isfinite(out).all()):
                    hunter.first = (index, n.name)
                return out
        return lambda *args: Watch(gm).run(*args)
