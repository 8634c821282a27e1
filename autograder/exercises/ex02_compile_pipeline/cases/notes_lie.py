# outcome: rejected | kind: cheat | checks: - | gpu_checks: train_step_speed | reason: too slow | device: gpu | class: 1
# The red team of 2026-11-30 (CPU): the eager step, and beside it a throwaway compiled function named training_loss,
# so that the worker's own count says a graph compiled without a break. The count is a note, never the
# verdict; the step is eager and the judge's clock says so.
from autograder.exercises.ex02_compile_pipeline.workload import train_step as _train_step


def make_train_step(model, optimizer):
    def training_loss(a):
        return (a.sin() * 2).cos().sum()

    throwaway = torch.compile(training_loss)  # noqa: F821

    def step(x, y):
        throwaway(x)
        return _train_step(model, optimizer, x, y)
    return step
