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
    foreach: bool | None  # what was passed to Adam (None: its default, single-tensor on a CPU, foreach on CUDA)
    steps: int
    graphs: int  # graphs compiled over all the steps
    recompile_reasons: list[str]  # the guard each recompile failed, as Dynamo wrote it
    seconds: float  # all steps, compiles included
    lrs: list[float]  # the learning rate each step used

    def line(self) -> str:
        return (f"lr as a {self.lr_kind:<6}, Adam(foreach={self.foreach!s:<5}): {self.steps} steps, {self.graphs} "
                f"graph(s) compiled, {self.seconds:.1f} s in all")


def scheduled_compiled_steps(lr_as_tensor: bool, steps: int = 6, width: int = 16,
                             device: torch.device | str = "cpu", foreach: bool | None = None,
                             backend: str = "inductor") -> SchedulerRun:
    """``steps`` compiled Adam steps on one ``width x width`` Linear with fixed gradients, an ExponentialLR
    scheduler (gamma 0.9) changing the learning rate after each. Dynamo state is reset first.

    With a float learning rate (torch 2.11 and 2.13: ``specialize_float = False``) the first graph guards on its
    value; at the first change automatic dynamic makes it a symbolic float. AOTAutograd's pass that turns symbolic
    floats into tensors (torch/fx/passes/_tensorify_python_scalars.py) keeps it symbolic only if every op that uses
    it takes a tensor there. Adam's single-tensor code (``foreach=False``, the default for CPU parameters) does;
    its foreach code (``foreach=True``, the default on CUDA) passes the learning rate to foreach ops as a Python
    number, so the pass specialises it and restarts Dynamo: every new value recompiles, up to the recompile limit.
    A tensor learning rate is data: one graph. (``foreach=True`` with a tensor lr needs ``capturable=True``.)"""
    torch._dynamo.reset()
    model = torch.nn.Linear(width, width, device=device)
    for p in model.parameters():
        p.grad = torch.randn_like(p) * 1e-3
    lr = torch.tensor(0.01) if lr_as_tensor else 0.01  # a CPU scalar tensor: Adam's documented form
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=foreach)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    @torch.compile(backend=backend)
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
    return SchedulerRun("tensor" if lr_as_tensor else "float", foreach, steps, events.graphs, reasons, seconds, lrs)


@dataclass
class BackwardGraphs:
    compiled_autograd: bool | str  # False, True (the config flag) or "context" (the explicit _enable context)
    backward: str  # "inside" the compiled function or "outside" it (after the compiled forward returned)
    forward_graphs: int  # graphs the backend got as forwards (compiled autograd's backward graph is one of them)
    partitioned: int  # joint forward+backward graphs AOTAutograd traced and split (calls of its partitioner)
    aot_backward_graphs: int  # backward graphs compiled per piece (calls of the backend's backward compiler)
    captures: int  # backward graphs compiled autograd captured at run time

    def line(self) -> str:
        mode = {False: "plain torch.compile", True: "compiled_autograd = True",
                "context": "compiled_autograd._enable(...)"}[self.compiled_autograd]
        return (f"{mode:>30}, backward() {self.backward:<7}: graphs to the backend {self.forward_graphs} "
                f"({self.forward_graphs - self.captures} forward, {self.captures} captured backward), joint graphs "
                f"partitioned {self.partitioned}, backward graphs compiled per piece {self.aot_backward_graphs}")


def backward_graphs(compiled_autograd: bool | str, steps: int = 3, width: int = 32, device="cpu",
                    backward: str = "inside") -> BackwardGraphs:
    """A training step with one graph break in its forward (a print, a logging call), compiled with an AOTAutograd
    backend that counts what reaches it: forward graphs, joint graphs partitioned, backward graphs compiled.

    Plain torch.compile: AOTAutograd traces and partitions a joint graph for each forward piece, and the backend
    compiles each piece's backward graph (lazily, at the first backward). ``compiled_autograd=True`` sets
    ``torch._dynamo.config.compiled_autograd``, which acts only while a torch.compile'd function runs: each call
    enters ``torch._dynamo.compiled_autograd._enable(...)`` and leaves it on return (an enter/exit hook of
    ``OptimizeContext`` in torch/_dynamo/eval_frame.py, torch 2.11 and 2.13). So with ``backward="inside"`` (the
    step calls ``loss.backward()``) autograd's whole graph is captured as one graph when ``backward()`` runs, the
    partitioned backward pieces are inlined into it and no backward is compiled per piece; with
    ``backward="outside"`` (``torch.compile`` of the forward, ``loss.backward()`` after it returns) the flag does
    nothing, silently. ``compiled_autograd="context"`` leaves the flag off and wraps the steps in the explicit
    ``torch._dynamo.compiled_autograd._enable(torch.compile(backend=...))`` context instead, which captures a
    backward called anywhere inside it. Captures are read from ``torch._dynamo.utils.counters["compiled_autograd"]``.
    """
    from contextlib import nullcontext

    from torch._dynamo import compiled_autograd as ca
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.utils import counters
    from torch._functorch.aot_autograd import make_boxed_func
    from torch._functorch.partitioners import default_partition

    if compiled_autograd not in (False, True, "context") or backward not in ("inside", "outside"):
        raise ValueError(f"compiled_autograd is False, True or 'context' (got {compiled_autograd!r}); backward is "
                         f"'inside' or 'outside' (got {backward!r})")
    torch._dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU(),
                                torch.nn.Linear(width, width)).to(device)
    x = torch.randn(8, width, device=device)
    seen = {"forward": 0, "backward": 0, "partitioned": 0}

    def counting(kind):
        def compiler(gm, example_inputs):
            seen[kind] += 1
            return make_boxed_func(gm.forward)  # AOTAutograd calls compiled graphs with one list of arguments
        return compiler

    def partition(joint, joint_inputs, **kwargs):  # AOTAutograd's default partitioner, counted
        seen["partitioned"] += 1
        return default_partition(joint, joint_inputs, **kwargs)

    def forward(x):
        h = model[0](x)
        torch._dynamo.graph_break()  # stands for a print or a logging call
        return model[2](model[1](h)).square().mean()

    def step(x):  # forward's body again, not a call of it: the break stays in this frame
        h = model[0](x)
        torch._dynamo.graph_break()
        loss = model[2](model[1](h)).square().mean()
        loss.backward()
        return loss

    backend = aot_autograd(fw_compiler=counting("forward"), bw_compiler=counting("backward"),
                           partition_fn=partition)
    before = torch._dynamo.config.compiled_autograd
    torch._dynamo.config.compiled_autograd = compiled_autograd is True
    try:
        compiled = torch.compile(step if backward == "inside" else forward, backend=backend)
        with ca._enable(torch.compile(backend=backend)) if compiled_autograd == "context" else nullcontext():
            for _ in range(steps):
                model.zero_grad()
                loss = compiled(x)
                if backward == "outside":
                    loss.backward()  # after the compiled function returned
    finally:
        torch._dynamo.config.compiled_autograd = before
        torch._dynamo.reset()
    return BackwardGraphs(compiled_autograd, backward, seen["forward"], seen["partitioned"], seen["backward"],
                          int(counters["compiled_autograd"].get("captures", 0)))
