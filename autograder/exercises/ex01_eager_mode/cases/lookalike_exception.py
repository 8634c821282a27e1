# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: that is not python | device: any | class: 1
# Cheat (red team, 2026-11-27): raises a local class named FloatingPointError, not Python's nor a subclass of it. The
# worker reports the exception's classes by qualified name; builtins.FloatingPointError must be among them.
_ref = fast_gelu_bias  # noqa: F821

class FloatingPointError(Exception):  # noqa: A001
    pass

def fast_gelu_bias(x, bias):
    try:
        return _ref(x, bias)
    except ArithmeticError:
        raise FloatingPointError("spoof") from None
