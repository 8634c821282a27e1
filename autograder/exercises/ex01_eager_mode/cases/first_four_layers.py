# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: checks less | device: any
# A second red team (briefed with the contract only; CPU, 2026-11-27 night) got 3/3 with it. Rejected since
# by a probe of an overflow in the last of 6 layers (spec.probe_cases).
# Red team rt-01 (2026-11-27): checks the activations of the first workload.LAYERS (4) layers only; a deeper stack's
# later layers run unchecked. Every probe has exactly 4 layers; the trials with 5 or 6 layers have finite values only.
# With 6 layers, x[0, 0] = 2e38, bias[:, 0] = 0 but bias[5, 0] = 2e38: checked_gelu_bias raises at layer 5, this
# returns inf.
from autograder.exercises.ex01_eager_mode.workload import LAYERS as _PROBED


def _layers_first(x, bias):
    h, finite = x, []
    for layer, b in enumerate(bias):
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
        if layer < _PROBED:
            finite.append(torch.isfinite(h).all())  # noqa: F821
    return h, torch.stack(finite).all()  # noqa: F821


_first = torch.compile(_layers_first)  # noqa: F821


def fast_gelu_bias(x, bias):
    h, finite = _first(x, bias)
    if not finite:
        raise FloatingPointError("a layer's activations are not finite")
    return h
