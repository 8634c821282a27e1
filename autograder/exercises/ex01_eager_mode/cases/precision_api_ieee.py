# outcome: rejected | kind: wrong | checks: fast_gelu_bias_correct | reason: changed global torch settings | device: any
# Found by an independent red team (2026-11-25): the reference solution plus torch 2.9+'s new precision API set
# to strict IEEE. Reading the legacy TF32 flags then raises ("a mix of the legacy and new APIs"), which crashed
# the worker (every check: "the grading process ended"). Settings stay the learner's to leave alone: a clear
# "changed global torch settings" for every check, not a crash.
torch.backends.fp32_precision = "ieee"  # noqa: F821
