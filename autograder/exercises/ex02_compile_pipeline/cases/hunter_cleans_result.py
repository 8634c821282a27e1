# outcome: rejected | kind: wrong | checks: hunter_graph,hunter_node | reason: is finite at | device: any
# The seventeenth red team (2026-11-29, CPU): a right hunter whose compiled function cleans its result with
# torch.nan_to_num. Rejected, as it was; the message said the opposite of what was wrong (non-finite where the
# reference is finite), and now says the result is finite where eager's is not.
import torch


class NanHunter:
    def __init__(self):
        self.first = None
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        index, self.graphs = self.graphs, self.graphs + 1
        hunter = self

        class Watch(torch.fx.Interpreter):
            def run_node(self, node):
                out = super().run_node(node)
                if (hunter.first is None and node.op in ("call_function", "call_method", "call_module")
                        and isinstance(out, torch.Tensor) and not bool(torch.isfinite(out).all())):
                    hunter.first = (index, node.name)
                return out

        def run(*args):
            outs = Watch(gm).run(*args)
            return tuple(torch.nan_to_num(o) if isinstance(o, torch.Tensor) and o.is_floating_point() else o
                         for o in outs)
        return run
