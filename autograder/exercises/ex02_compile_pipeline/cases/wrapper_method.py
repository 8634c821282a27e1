# outcome: rejected | kind: wrong | checks: - | gpu_checks: train_step_speed | reason: too slow | note: nothing was compiled | device: any
# Known wrong, the trap of this part: lesson 2's recipe as is. torch.compile(model) returns a wrapper whose calls,
# compiled(x), run compiled; compiled.training_loss is the model's own method, reached through the wrapper, and
# runs eagerly: nothing is compiled (0.95x on an H200 in the design probe, benchmarks/design/ex02_transfer.py).
def make_train_step(model, optimizer):
    compiled = torch.compile(model)  # noqa: F821

    def step(x, y):
        return train_step(compiled, optimizer, x, y)  # noqa: F821
    return step
