# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: checks less | device: any
# Known wrong (red team, 2026-11-27): checks the inputs and the first layer's activations only; later layers run
# unchecked (compiled). Rejected by the probe whose finite inputs overflow at a later layer (2e38, then 2e38 more).
def _layer(h, b):
    z = h + b
    return 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821

def _rest(h, bias):
    for b in bias:
        h = _layer(h, b)
    return h

_rest_c = torch.compile(_rest)  # noqa: F821

def fast_gelu_bias(x, bias):
    if not (torch.isfinite(x).all() and torch.isfinite(bias).all()):  # noqa: F821
        raise FloatingPointError("inputs not finite")
    h = _layer(x, bias[0])
    if not torch.isfinite(h).all():  # noqa: F821
        raise FloatingPointError("layer 0 not finite")
    return _rest_c(h, bias[1:]) if len(bias) > 1 else h
