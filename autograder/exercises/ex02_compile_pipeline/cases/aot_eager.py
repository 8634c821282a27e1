# outcome: rejected | kind: wrong | checks: train_step_speed | reason: generated no kernels | device: gpu
# Known wrong: backend="aot_eager" traces forward and backward through AOTAutograd but generates no
# kernels; it runs the same ATen ops as eager, slower (0.82x over 21 gradings on an H200).
def make_train_step(model, optimizer):
    compiled = torch.compile(model, backend="aot_eager")  # noqa: F821

    def step(x, y):
        return train_step(compiled, optimizer, x, y)  # noqa: F821
    return step
