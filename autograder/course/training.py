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


@dataclass
class BackwardGraphs:
    compiled_autograd: bool
    forward_graphs: int  # graphs the backend got as forwards (compiled autograd's backward graph is one of them)
    aot_backward_graphs: int  # backward graphs AOTAutograd traced ahead of time, one per forward graph
    captures: int  # backward graphs compiled autograd captured at run time

    def line(self) -> str:
        mode = "compiled autograd" if self.compiled_autograd else "plain torch.compile"
        return (f"{mode:>19}: forward graphs {self.forward_graphs}, backward graphs traced ahead of time "
                f"{self.aot_backward_graphs}, backward graphs captured at run time {self.captures}")


def backward_graphs(compiled_autograd: bool, steps: int = 3, width: int = 32, device="cpu") -> BackwardGraphs:
    """A training step with one graph break in its forward (a print, a logging call), compiled with a backend that
    counts what it gets. Plain torch.compile: AOTAutograd traces a backward graph for each forward graph, ahead of
    time. ``torch._dynamo.config.compiled_autograd = True`` (set before torch.compile): autograd's own graph is
    captured when ``backward()`` runs, as one graph, and compiled like any other (its captures are counted in
    ``torch._dynamo.utils.counters["compiled_autograd"]``)."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.utils import counters
    from torch._functorch.aot_autograd import make_boxed_func

    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU(),
                                torch.nn.Linear(width, width)).to(device)
    x = torch.randn(8, width, device=device)
    seen = {"forward": 0, "backward": 0}

    def counting(kind):
        def compiler(gm, example_inputs):
            seen[kind] += 1
            return make_boxed_func(gm.forward)  # AOTAutograd calls compiled graphs with one list of arguments
        return compiler

    def step(x):
        h = model[0](x)
        torch._dynamo.graph_break()  # stands for a print or a logging call
        loss = model[2](model[1](h)).square().mean()
        loss.backward()
        return loss

    before = torch._dynamo.config.compiled_autograd
    torch._dynamo.config.compiled_autograd = compiled_autograd
    try:
        compiled = torch.compile(step, backend=aot_autograd(fw_compiler=counting("forward"),
                                                            bw_compiler=counting("backward")))
        for _ in range(steps):
            model.zero_grad()
            compiled(x)
    finally:
        torch._dynamo.config.compiled_autograd = before
        torch._dynamo.reset()
    return BackwardGraphs(compiled_autograd, seen["forward"], seen["backward"],
                          int(counters["compiled_autograd"].get("captures", 0)))
