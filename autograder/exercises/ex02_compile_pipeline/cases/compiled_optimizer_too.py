# outcome: passed | kind: honest | checks: train_step_correct | gpu_checks: train_step_speed | reason: legitimate | device: any
# Legitimate: the training loss compiled and the optimizer's step compiled too (its own small graph; lesson 2 compiles
# one). In one process on an H200 it was faster than the loss compiled alone on 2026-11-30 (5.99 vs 7.81 ms per step,
# benchmarks/design/ex02-loss-method-h200-2026-11-30-penalty1e-2.jsonl) and slower on 2026-11-29 (the earlier workload).
def make_train_step(model, optimizer):
    training_loss = torch.compile(model.training_loss)  # noqa: F821

    @torch.compile  # noqa: F821
    def optimizer_step():
        optimizer.step()

    def step(x, y):
        loss = training_loss(x, y)
        loss.backward()
        optimizer_step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step
