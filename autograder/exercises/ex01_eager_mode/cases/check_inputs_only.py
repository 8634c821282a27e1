# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: overflow | device: any
# Known wrong: the check moved before the compiled call, on the inputs only (one host read per call, no graph break),
# as if finite inputs made finite activations. They need not: x + bias can overflow float32 (3e38 + 3e38 = inf), and
# checked_gelu_bias raises there. Catches the NaN and the infinite bias; the overflow case rejects it, on any device.
_layers = compiled_layers  # noqa: F821 - the reference solution's compiled layers (its cells run first)


def fast_gelu_bias(x, bias):
    if not (torch.isfinite(x).all() and torch.isfinite(bias).all()):  # noqa: F821
        raise FloatingPointError("the inputs are not finite")
    h, _ = _layers(x, bias)
    return h
