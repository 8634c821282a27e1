# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: raised ValueError | device: any
# The graded function raises.
def fast_gelu_bias(x, bias):
    raise ValueError("not implemented yet")
