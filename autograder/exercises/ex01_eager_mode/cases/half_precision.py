# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | gpu_checks: fast_gelu_bias_speed | reason: differs | device: any
# Known wrong: compiled in fp16 and cast back: faster, but not the same result.
_compiled = torch.compile(gelu_bias_chain)  # noqa: F821


def fast_gelu_bias(x, bias):
    return _compiled(x.half(), bias.half()).float()
