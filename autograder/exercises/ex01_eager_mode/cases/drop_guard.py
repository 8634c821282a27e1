# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: check was dropped | device: any
# Known wrong: the host read found and "fixed" by deleting the check. The layers compile into one graph and are fast,
# and the results on finite inputs are right, but where checked_gelu_bias raises FloatingPointError (a NaN, an
# infinity, an overflow) this returns non-finite activations: another function. Rejected by the correctness check's
# guard inputs, on any device.
def _layers(x, bias):
    h = x
    for b in bias:
        z = h + b
        h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))  # noqa: F821
    return h


fast_gelu_bias = torch.compile(_layers)  # noqa: F821
