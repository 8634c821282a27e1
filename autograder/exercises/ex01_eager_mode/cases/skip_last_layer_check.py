# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: checks less | device: any
# A second red team (briefed with the contract only; CPU, 2026-11-27 night) got 3/3 with it. Rejected since
# by a probe of an overflow in the last of 6 layers (spec.probe_cases).
# Red team rt-01 (2026-11-27): an off-by-one: checks the activations of every layer but the last, and the last layer's
# bias row for infinities. Misses an overflow in the last layer (x[0, 0] = 2e38, bias[:-1, 0] = 0, bias[-1, 0] = 2e38).
# The probes' later-layer overflow is at layer k, 1..layers-1, drawn from the secret: it passes where k is never the last.
def _layers_but_last(x, bias):
    h, finite = x, []
    for b in bias:
        finite.append(torch.isfinite(h).all())  # noqa: F821 - the previous layer's output (x for the first)
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h, torch.stack(finite).all() & torch.isfinite(bias[-1]).all()  # noqa: F821


_but_last = torch.compile(_layers_but_last)  # noqa: F821


def fast_gelu_bias(x, bias):
    h, finite = _but_last(x, bias)
    if not finite:
        raise FloatingPointError("a layer's activations are not finite")
    return h
