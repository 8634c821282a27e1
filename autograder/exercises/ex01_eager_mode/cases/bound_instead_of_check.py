# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: raised | device: any
# Known wrong (red team, 2026-11-27): never looks at an activation; raises if max|x| + sum of max|bias| is not finite.
# Rejected by the probe whose 3e38 input is cancelled by its bias.
def _layers(x, bias):
    h = x
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h

_c = torch.compile(_layers)  # noqa: F821

def fast_gelu_bias(x, bias):
    bound = x.abs().amax() + bias.abs().amax(dim=-1).sum()
    if not torch.isfinite(bound):  # noqa: F821  (NaN/inf inputs make the bound non-finite too)
        raise FloatingPointError("may overflow")
    return _c(x, bias)
