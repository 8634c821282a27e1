# outcome: rejected | kind: cheat | checks: - | gpu_checks: train_step_speed | reason: during timing / too slow | note: nothing was compiled | device: any | class: 4
# The red team of 2026-11-30 (CPU): the eager step while the optimizer is the correctness check's plain SGD with lr=1,
# and under AdamW (the timed run) only the forward on every other call. Passes train_step_correct (it is eager there);
# the timed blocks' losses and weights, replayed by the judge with its own AdamW, must not pass.
from autograder.exercises.ex02_compile_pipeline.workload import train_step as _train_step


def make_train_step(model, optimizer):
    is_check = isinstance(optimizer, torch.optim.SGD) and optimizer.param_groups[0]["lr"] == 1.0  # noqa: F821
    calls = [0]

    def step(x, y):
        if is_check:
            return _train_step(model, optimizer, x, y)
        calls[0] += 1
        if calls[0] % 2:
            with torch.no_grad():  # noqa: F821
                return model.training_loss(x, y)
        return _train_step(model, optimizer, x, y)
    return step
