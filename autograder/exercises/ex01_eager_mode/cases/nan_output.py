# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: non-finite | device: any
# A NaN slipped into the output.
def fast_gelu_bias(x, bias):
    out = checked_gelu_bias(x, bias)  # noqa: F821
    out.view(-1)[0] = float("nan")
    return out
