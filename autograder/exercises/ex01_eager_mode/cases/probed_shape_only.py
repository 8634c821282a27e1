# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: checks less | device: any
# A second red team (briefed with the contract only; CPU, 2026-11-27 night) got 3/3 with it. Rejected since
# by a probe of a NaN in a bias row at a trial's shape (spec.probe_cases).
# Red team rt-01 (2026-11-27): keeps the check only for inputs of the timed shape (workload.SIZES, public), the only
# shape the probes use; any other shape runs the layers with no check at all. A NaN in a (3, 5) input returns NaN
# activations where checked_gelu_bias raises. The four unseen shapes of the trials hold finite values only.
from autograder.exercises.ex01_eager_mode.workload import SIZES as _SIZES


def _layers_plain(x, bias):
    h = x
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h


_plain = torch.compile(_layers_plain)  # noqa: F821
_checked = fast_gelu_bias  # noqa: F821 - the reference solution's


def fast_gelu_bias(x, bias):
    if tuple(x.shape) in _SIZES.values():
        return _checked(x, bias)
    return _plain(x, bias)
