# outcome: passed | kind: honest | checks: - | reason: legitimate | device: gpu
# Legitimate (issue 38's list of honest alternatives): the training step's model compiled with mode="max-autotune"
# (its first step had not finished after 470 s on an H100 from cold caches, 2026-11-27), the optimizer's step
# compiled too. Its text asks for max-autotune, so its grading gets 1800 s (submission.grading_limit), and a compile
# may run past a request's limit up to that. It must pass; that it does within 1800 s is not yet measured
# (docs/THREAT_MODEL.md).
import torch


def make_train_step(model, optimizer):
    compiled = torch.compile(model, mode="max-autotune")

    @torch.compile
    def optimizer_step():
        optimizer.step()

    def step(x, y):
        torch.compiler.cudagraph_mark_step_begin()
        loss = mse(compiled(x), y)  # noqa: F821
        loss.backward()
        optimizer_step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach().clone()

    return step
