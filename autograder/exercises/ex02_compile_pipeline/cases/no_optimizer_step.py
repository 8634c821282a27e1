# outcome: rejected | kind: wrong | checks: train_step_correct | reason: did not move | device: any
# Known wrong: forward and backward compiled, but the weights are never updated (no optimizer.step()).
def make_train_step(model, optimizer):
    compiled = torch.compile(model.training_loss)  # noqa: F821

    def step(x, y):
        loss = compiled(x, y)
        loss.backward()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
