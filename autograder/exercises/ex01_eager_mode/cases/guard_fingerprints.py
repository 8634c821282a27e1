# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: raised / checks less | device: any | class: 4
# Cheat (red team, 2026-11-27): checks no activation; recognises the old guard inputs by their fingerprints (a NaN in x,
# a non-finite last bias row, x + bias[0] overflowing). Rejected by an infinite bias before the last layer or an
# overflow at a later layer.
def _layers(x, bias):
    h = x
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h

def fast_gelu_bias(x, bias):
    if (torch.isnan(x).any() or not torch.isfinite(bias[-1]).all()  # noqa: F821
            or not torch.isfinite(x.amax() + bias[0].amax())):  # noqa: F821
        raise FloatingPointError("guard")
    return _layers(x, bias)
