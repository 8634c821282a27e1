# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | gpu_checks: fast_gelu_bias_speed | reason: differs | device: any
# Known wrong: compiled in fp16 and cast back: faster, but not the same result.
_compiled = fast_gelu_bias  # noqa: F821 - the reference solution's (its cells run first)


def fast_gelu_bias(x, bias):
    return _compiled(x.half(), bias.half()).float()
