# outcome: rejected | kind: wrong | checks: hunter_graph,hunter_node | reason: is finite at | device: any
# The seventeenth red team (2026-11-29, CPU): a right hunter whose compiled function cleans its result with
# torch.nan_to_num. Rejected, as it was; the message said the opposite of what was wrong (non-finite where the
# reference is finite), and now says the result is finite where eager's is not.
import torch

_Reference = NanHunter  # noqa: F821 - the reference solution's, defined before this file runs


class NanHunter(_Reference):
    def __call__(self, gm, example_inputs):
        run = super().__call__(gm, example_inputs)

        def cleaned(*args):
            return tuple(torch.nan_to_num(o) if isinstance(o, torch.Tensor) and o.is_floating_point() else o
                         for o in run(*args))
        return cleaned
