"""Lesson 2's training extras: a compiled optimizer step under a learning-rate scheduler, with the learning rate
as a Python float or as a tensor. Returns what compiled and how long it took, so a cell only prints it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
import torch._dynamo

from autograder.core.compile_events import capture_compile_events


@dataclass
class SchedulerRun:
    lr_kind: str  # "float" or "tensor"
    steps: int
    graphs: int  # graphs compiled over all the steps
    recompile_reasons: list[str]  # the guard each recompile failed, as Dynamo wrote it
    seconds: float  # all steps, compiles included
    lrs: list[float]  # the learning rate each step used

    def line(self) -> str:
        return (f"lr as a {self.lr_kind:<6}: {self.steps} steps, {self.graphs} graph(s) compiled, "
                f"{self.seconds:.1f} s in all")


def scheduled_compiled_steps(lr_as_tensor: bool, steps: int = 6, width: int = 16,
                             device: torch.device | str = "cpu") -> SchedulerRun:
    """``steps`` compiled Adam steps on one ``width x width`` Linear with fixed gradients, an ExponentialLR
    scheduler (gamma 0.9) changing the learning rate after each. Dynamo state is reset first."""
    torch._dynamo.reset()
    model = torch.nn.Linear(width, width, device=device)
    for p in model.parameters():
        p.grad = torch.randn_like(p) * 1e-3
    lr = torch.tensor(0.01) if lr_as_tensor else 0.01  # a CPU scalar tensor: Adam's documented form
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    @torch.compile
    def step():
        optimizer.step()

    lrs = []
    start = time.perf_counter()
    with capture_compile_events() as events:
        for _ in range(steps):
            lrs.append(float(optimizer.param_groups[0]["lr"]))
            step()
            scheduler.step()
    seconds = time.perf_counter() - start
    reasons = ["; ".join(r.guards) or r.where for r in events.recompiles]
    torch._dynamo.reset()
    return SchedulerRun("tensor" if lr_as_tensor else "float", steps, events.graphs, reasons, seconds, lrs)
