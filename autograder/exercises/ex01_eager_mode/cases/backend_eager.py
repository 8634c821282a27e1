# Known wrong: backend="eager" captures graphs with Dynamo but generates no kernels (about 1.0x).
fast_gelu_bias = torch.compile(gelu_bias_chain, backend="eager")  # noqa: F821
