# outcome: rejected | kind: wrong | checks: fast_gelu_bias_speed | reason: generated no kernels | device: gpu
# Known wrong: backend="eager" captures graphs with Dynamo but generates no kernels (about 1.0x).
fast_gelu_bias = torch.compile(gelu_bias_chain, backend="eager")  # noqa: F821
