# outcome: rejected | kind: wrong | checks: fast_gelu_bias_speed | reason: too slow | device: gpu
# Known wrong: "fast" is the eager chain itself (1.0x).
fast_gelu_bias = gelu_bias_chain  # noqa: F821
