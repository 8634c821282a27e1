# outcome: rejected | kind: wrong | checks: fast_gelu_bias_speed | reason: too slow | device: gpu
# Known wrong: "fast" is the eager chain itself (1.0x).
fast_gelu_bias = checked_gelu_bias  # noqa: F821
