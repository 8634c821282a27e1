# outcome: diagnosed | kind: wrong | checks: train_step_correct | note: inside the model's training loss | device: any
# Known wrong: a NaN check before the third block is a data-dependent Python `if`: Dynamo breaks the training loss
# into two graphs, and AOTAutograd builds two backward graphs (on the earlier workload, a break between the blocks
# still gave 2.35x on an H200: only the structure check catches it).
def make_train_step(model, optimizer):
    block = model.blocks[len(model.blocks) // 2]
    inner = block.forward

    def checked(h):
        if not torch.isfinite(h).all():  # noqa: F821
            raise FloatingPointError("non-finite activations")
        return inner(h)

    block.forward = checked
    compiled = torch.compile(model.training_loss)  # noqa: F821

    def step(x, y):
        loss = compiled(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
