# outcome: rejected | kind: wrong | checks: train_step_correct | reason: the loss step(x, y) returned | device: any
# Known wrong: compiles the model and writes the loss as lesson 2's step did, the MSE of model(x): fast, but it is
# not the model's training loss (no activation penalty), so neither the loss nor the gradients are the eager step's.
def make_train_step(model, optimizer):
    compiled = torch.compile(model)  # noqa: F821

    def step(x, y):
        loss = (compiled(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
