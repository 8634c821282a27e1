# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | gpu_checks: fast_gelu_bias_speed | reason: differs | device: any | class: 1
# Rebinds the baseline and the reference wherever the submission can reach them (the workload module, the
# spec module, the notebook's name) to a cheap wrong function, and returns the same wrong thing: the judge's
# baseline and reference live in another process.
import autograder.exercises.ex01_eager_mode.spec as _spec
import autograder.exercises.ex01_eager_mode.workload as _workload


def _cheap(x, bias):
    return x * 0.5


_workload.checked_gelu_bias = _spec.checked_gelu_bias = checked_gelu_bias = _cheap
fast_gelu_bias = _cheap
