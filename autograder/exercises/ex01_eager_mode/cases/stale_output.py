# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | gpu_checks: fast_gelu_bias_speed | reason: differs | device: any
# Known wrong: compiled, but returns a cached result for an input of a shape it has seen.
_compiled = fast_gelu_bias  # noqa: F821 - the reference solution's (its cells run first)
_cache = {}


def fast_gelu_bias(x, bias):
    key = tuple(x.shape)
    if key not in _cache:
        _cache[key] = _compiled(x, bias)
    return _cache[key]
