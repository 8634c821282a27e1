# outcome: rejected | kind: wrong | checks: train_step_correct | reason: the gradient of | device: any
# Known wrong (and a red team's, 2026-11-27, whose rebound gradient hooks then reported clean gradients): the step
# never zeroes the gradients, so each step's add up into the next one's. With the plain SGD (lr=1) the judge hands
# over, the weights' change after the second step is the sum of two gradients, read in the judge's own memory.
def make_train_step(model, optimizer):
    compiled = torch.compile(model.training_loss)  # noqa: F821

    def step(x, y):
        loss = compiled(x, y)
        loss.backward()
        optimizer.step()
        return loss.detach()
    return step
