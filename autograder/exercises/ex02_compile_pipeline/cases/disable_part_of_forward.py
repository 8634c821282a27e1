# outcome: diagnosed | kind: cheat | checks: train_step_correct | note: inside the model's training loss / nothing was compiled | device: any
# Hides the awkward half of the model from the compiler with torch.compiler.disable on the third block's forward:
# the training loss breaks there.
def make_train_step(model, optimizer):
    block = model.blocks[len(model.blocks) // 2]
    block.forward = torch.compiler.disable(block.forward)  # noqa: F821
    compiled = torch.compile(model.training_loss)  # noqa: F821

    def step(x, y):
        loss = compiled(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
