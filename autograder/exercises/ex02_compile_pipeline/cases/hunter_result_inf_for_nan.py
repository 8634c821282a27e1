# outcome: rejected | kind: cheat | checks: hunter_graph,hunter_node | reason: where eager has something else | device: any | class: 4
# The seventeenth red team (2026-11-29, CPU; 5/5 then): a right node-by-node hunter whose compiled function returns +inf
# where eager returns NaN, and flips the sign of infinities: not eager's values, which the contract demands. The finite
# comparison let it through; the check now compares NaN, +inf and -inf places too.
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
            return tuple(torch.where(torch.isnan(o), torch.inf, torch.where(torch.isinf(o), -o, o)) if isinstance(o, torch.Tensor) and o.is_floating_point() else o
                         for o in outs)
        return run
