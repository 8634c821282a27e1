# outcome: rejected | kind: wrong | checks: - | gpu_checks: train_step_speed | reason: during timing | device: gpu
# The red team of 2026-11-30 (CPU): the loss compiled, but the update written by hand, p -= lr * grad, whatever the
# optimizer it is given. Under the correctness check's plain SGD with lr=1 that is the same update; the timed run's
# AdamW is not, and the judge replays every timed block with its own AdamW.
def make_train_step(model, optimizer):
    training_loss = torch.compile(model.training_loss)  # noqa: F821

    def step(x, y):
        loss = training_loss(x, y)
        loss.backward()
        with torch.no_grad():  # noqa: F821
            for group in optimizer.param_groups:
                for p in group["params"]:
                    p.add_(p.grad, alpha=-group["lr"])
                    p.grad = None
        return loss.detach()
    return step
