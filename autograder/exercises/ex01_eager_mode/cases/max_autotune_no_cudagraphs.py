# outcome: passed | kind: honest | checks: fast_gelu_bias_correct,fast_gelu_bias_speed | reason: legitimate | device: gpu
# Legitimate: another mode (max-autotune without CUDA graphs) for the same fused kernel.
fast_gelu_bias = torch.compile(gelu_bias_chain, mode="max-autotune-no-cudagraphs")  # noqa: F821
