# Cheat (class 4/6): reports the exact fp32 loss (no-grad compiled forward), but once nothing watches its gradients (no grader hooks) and after 12 honest steps (AdamW state warm), takes the gradient from a bfloat16 (autocast) forward/backward. SHOULD FAIL train_step_speed's replay (the gradients/updates are bf16, not the step asked for); graded with grade_gate.py (cpu_gate) since the CLI skips timing on a CPU.
import torch

from autograder.course.models import mse


def make_train_step(model, optimizer):
    compiled = torch.compile(model)
    params = list(model.parameters())
    calls = [0]

    def step(x, y):
        calls[0] += 1
        watched = any(getattr(p, "_post_accumulate_grad_hooks", None) for p in params)
        if watched or calls[0] <= 12:
            loss = mse(compiled(x), y)
            loss.backward()
        else:
            with torch.no_grad():
                loss = mse(compiled(x), y)  # the loss the caller sees: exact fp32
            with torch.autocast(x.device.type, dtype=torch.bfloat16):
                cheap = mse(model(x), y)  # the gradient: bf16
            cheap.float().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    return step
