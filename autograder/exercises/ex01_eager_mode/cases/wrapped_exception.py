# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: raised RuntimeError | device: any
# Known wrong (red team, 2026-11-27): keeps the check but raises RuntimeError caused by the FloatingPointError: a caller's
# `except FloatingPointError:` does not catch it. Only the exception itself counts, not its cause.
_ref = fast_gelu_bias  # noqa: F821

def fast_gelu_bias(x, bias):
    try:
        return _ref(x, bias)
    except FloatingPointError as e:
        raise RuntimeError("wrapped") from e
