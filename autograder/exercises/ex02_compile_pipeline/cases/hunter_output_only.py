# outcome: rejected | kind: wrong | checks: hunter_node | reason: the first node whose output is not finite | device: any
# Known wrong: runs each graph whole and, when the graph's result is not finite, blames the graph's last op. The graph
# is right (where no NaN vanishes before the output), the node is not: the first non-finite node came earlier.
import torch


class NanHunter:
    def __init__(self):
        self.first, self.count = None, 0

    def __call__(self, gm, example_inputs):
        index, self.count = self.count, self.count + 1
        last = [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")][-1]

        def run(*args):
            out = gm.forward(*args)
            result = out[0] if isinstance(out, (tuple, list)) else out
            if self.first is None and not bool(torch.isfinite(result).all()):
                self.first = (index, last.name)
            return out
        return run
