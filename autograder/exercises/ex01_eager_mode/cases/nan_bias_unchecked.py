# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: checks less | device: any
# A second red team (briefed with the contract only; CPU, 2026-11-27 night) got 3/3 with it. Rejected since
# by a probe of a NaN in a bias row (spec.probe_cases).
# Red team rt-01 (2026-11-27): "NaN can only come in with x; inside the layers things only overflow": checks x for
# NaN/inf once, then only whether a layer's pre-activation z = h + b is infinite (isinf, not isfinite). That catches
# every probe (a NaN in x; an infinite bias, whose z is +-inf; an overflow, +inf or -inf in z) but not a NaN in the bias:
# bias[1, 0] = NaN makes checked_gelu_bias raise at layer 1 and this return NaN activations. No probe has a NaN bias.
def _layers_isinf(x, bias):
    h, inf = x, []
    for b in bias:
        z = h + b
        inf.append(torch.isinf(z).any())  # noqa: F821
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h, torch.stack(inf).any() | ~torch.isfinite(x).all()  # noqa: F821


_isinf = torch.compile(_layers_isinf)  # noqa: F821


def fast_gelu_bias(x, bias):
    h, bad = _isinf(x, bias)
    if bad:
        raise FloatingPointError("a layer overflowed, or x is not finite")
    return h
