# outcome: rejected | kind: wrong | checks: fast_gelu_bias_speed | reason: generated no kernels | device: gpu
# Known wrong: backend="eager" captures graphs with Dynamo but generates no kernels (about 1.0x).

def _checked(layers):
    """The reference's wrapper around a compiled gelu_bias_layers (the solution's): one host read per call."""
    def fast_gelu_bias(x, bias):
        h, finite = layers(x, bias)
        if not finite:
            raise FloatingPointError("the activations of a layer are not finite")
        return h
    return fast_gelu_bias


fast_gelu_bias = _checked(torch.compile(gelu_bias_layers, backend="eager"))  # noqa: F821
