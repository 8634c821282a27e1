# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: raised | device: any
# A second red team (briefed with the contract only; CPU, 2026-11-27 night) got 3/3 with it. Rejected since
# by a probe of 3e38 carried through every layer (spec.probe_cases).
# Red team rt-01 (2026-11-27): a "headroom" check instead of the finiteness check: a layer fails when any |activation|
# exceeds half of float32's largest value (or is NaN), "since it would overflow soon anyway". Stricter than
# checked_gelu_bias: one layer on x = 3e38 (bias 0) returns 3e38 there, and this raises FloatingPointError. No probe
# on which checked_gelu_bias returns has an activation above 1e38 (the 3e38 input is cancelled by its bias first).
_HALF_MAX = torch.finfo(torch.float32).max / 2  # noqa: F821


def _layers_headroom(x, bias):
    h, ok = x, []
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
        ok.append((h.abs() <= _HALF_MAX).all())  # NaN compares False: it fails too
    return h, torch.stack(ok).all()  # noqa: F821


_headroom = torch.compile(_layers_headroom)  # noqa: F821


def fast_gelu_bias(x, bias):
    h, ok = _headroom(x, bias)
    if not ok:
        raise FloatingPointError("a layer's activations overflowed (or are about to)")
    return h
