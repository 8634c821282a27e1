# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: raised | device: any
# Known wrong (red team, 2026-11-27): checks isfinite(h.sum()) once; a sum of finite activations can overflow, so it
# raises where checked_gelu_bias returns. Rejected by the probe with a row of 1e38s.
def _layers(x, bias):
    h = x
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h, h.sum()

_c = torch.compile(_layers)  # noqa: F821

def fast_gelu_bias(x, bias):
    h, s = _c(x, bias)
    if not torch.isfinite(s):  # noqa: F821
        raise FloatingPointError("not finite")
    return h
