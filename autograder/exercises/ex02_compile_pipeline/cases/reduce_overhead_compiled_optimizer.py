# outcome: passed | kind: honest | checks: - | reason: legitimate | device: gpu
# Legitimate (issue 38's list of honest alternatives): the training loss compiled with mode="reduce-overhead" (CUDA
# graphs for forward and backward) and the optimizer's step compiled too. The loss is copied out of the CUDA
# graph's memory before the next step can overwrite it.
import torch


def make_train_step(model, optimizer):
    compiled = torch.compile(model.training_loss, mode="reduce-overhead")

    @torch.compile
    def optimizer_step():
        optimizer.step()

    def step(x, y):
        torch.compiler.cudagraph_mark_step_begin()
        loss = compiled(x, y)
        loss.backward()
        optimizer_step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach().clone()

    return step
