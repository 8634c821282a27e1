# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: allow_tf32 | device: any | class: 2
# Lower matmul precision than allowed (TF32).
torch.backends.cuda.matmul.allow_tf32 = True  # noqa: F821
torch.backends.cudnn.allow_tf32 = False  # noqa: F821
