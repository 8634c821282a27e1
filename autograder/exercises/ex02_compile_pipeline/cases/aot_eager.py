# outcome: rejected | kind: wrong | checks: train_step_speed | reason: too slow | note: generated no kernels | device: gpu
# Known wrong: backend="aot_eager" traces forward and backward through AOTAutograd but generates no
# kernels; it runs the same ATen ops as eager, slower (0.82x over 21 gradings on an H200, the earlier workload; 0.94x on
# this one, 2026-11-30). That no kernel was generated is the worker's word: a note, not the verdict.
def make_train_step(model, optimizer):
    compiled = torch.compile(model.training_loss, backend="aot_eager")  # noqa: F821

    def step(x, y):
        loss = compiled(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
