# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: raised | device: any
# A second red team (briefed with the contract only; CPU, 2026-11-27 night) got 3/3 with it. Rejected since
# by a probe of a column of 1e38s (spec.probe_cases).
# Red team rt-01 (2026-11-27): the verdict is whether each layer's per-feature sums (over the rows, dim -2) are finite,
# not whether every activation is. Stricter than checked_gelu_bias: a column of finite activations whose sum overflows
# float32 (x[:, 0] = 1e38 on 8 rows, any bias of modest size) raises FloatingPointError where checked_gelu_bias returns.
# The probes' "row of 1e38s" overflows a row's sum, never a column's, and the total-sum case it was made for sums both.
def _layers_colsum(x, bias):
    h, finite = x, []
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
        finite.append(torch.isfinite(h.sum(dim=-2)).all())  # noqa: F821
    return h, torch.stack(finite).all()  # noqa: F821


_colsum = torch.compile(_layers_colsum)  # noqa: F821


def fast_gelu_bias(x, bias):
    h, finite = _colsum(x, bias)
    if not finite:
        raise FloatingPointError("a layer's activations are not finite")
    return h
