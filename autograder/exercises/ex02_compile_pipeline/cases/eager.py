# outcome: rejected | kind: wrong | checks: - | gpu_checks: train_step_speed | reason: too slow | note: nothing was compiled / no graph was compiled | device: any
# Known wrong: the eager training step, nothing compiled (about 1.0x).
def make_train_step(model, optimizer):
    def step(x, y):
        return train_step(model, optimizer, x, y)  # noqa: F821
    return step
