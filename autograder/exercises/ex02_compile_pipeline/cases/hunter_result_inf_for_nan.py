# outcome: rejected | kind: cheat | checks: hunter_graph,hunter_node | reason: where eager has something else | device: any | class: 4
# The seventeenth red team (2026-11-29, CPU; 5/5 then): a right node-by-node hunter whose compiled function returns +inf
# where eager returns NaN, and flips the sign of infinities: not eager's values, which the contract demands. The finite
# comparison let it through; the check now compares NaN, +inf and -inf places too.
import torch

_Reference = NanHunter  # noqa: F821 - the reference solution's, defined before this file runs


class NanHunter(_Reference):
    def __call__(self, gm, example_inputs):
        run = super().__call__(gm, example_inputs)

        def flipped(*args):
            return tuple(torch.where(torch.isnan(o), torch.inf, torch.where(torch.isinf(o), -o, o))
                         if isinstance(o, torch.Tensor) and o.is_floating_point() else o for o in run(*args))
        return flipped
