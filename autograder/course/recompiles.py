"""Lesson 5's demos: what makes a compiled function recompile, the guards behind it, and what a stream of
requests of varying length costs under each way of compiling (per-call latency, compile events)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from autograder.core.compile_events import capture_compile_events
from autograder.core.timing import synchronize


@dataclass
class Trigger:
    what: str
    calls: int
    graphs: int  # graphs compiled over the calls
    recompiles: int
    guard: str  # the first guard that failed, in Dynamo's words ("-" when nothing recompiled)


class _Counter(nn.Module):
    """Counts its calls in a Python int, as monitoring code does."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x.sin() * 2


class _Dropout(nn.Module):
    def forward(self, x):
        return nn.functional.dropout(x.sin(), p=0.1, training=self.training)


def _scaled(x, n):
    return x.sin() * n


def triggers(device: torch.device) -> list[Trigger]:
    """Compile a fresh function, call it three times changing one thing each time: what did Dynamo do?

    Each case is (what, function, calls): each call gets the compiled function and makes one call with it.
    """
    x = torch.randn(64, device=device)
    sizes = [torch.randn(n, device=device) for n in (64, 128, 256)]
    model, counter = _Dropout().to(device), _Counter().to(device)

    def eval_then(c):
        model.eval()
        return c(x)

    def no_grad_then(c):
        with torch.no_grad():
            return c(x)

    cases = [
        ("the same call again", torch.sin, [lambda c: c(x)] * 3),
        ("a new shape each call (64, 128, 256)", torch.sin, [lambda c, t=t: c(t) for t in sizes]),
        ("a Python int argument (2, 3, 4)", _scaled, [lambda c, n=n: c(x, n) for n in (2, 3, 4)]),
        ("a Python float argument (2.0, 3.0, 4.0)", _scaled, [lambda c, n=n: c(x, n) for n in (2.0, 3.0, 4.0)]),
        ("a module's int attribute (self.calls += 1)", counter, [lambda c: c(x)] * 3),
        ("dtype (float32, float64, float16)", torch.cos,
         [lambda c, d=d: c(x.to(d)) for d in (torch.float32, torch.float64, torch.float16)]),
        ("a tensor that requires grad", torch.tan, [lambda c: c(x), lambda c: c(x.clone().requires_grad_())]),
        ("train() -> eval()", model, [lambda c: c(x), eval_then]),
        ("torch.no_grad() around the second call", torch.tanh, [lambda c: c(x), no_grad_then]),
    ]
    if device.type == "cuda":
        cases.append(("device (cuda -> cpu)", torch.exp, [lambda c: c(x), lambda c: c(x.cpu())]))
    return [_run(what, fn, calls) for what, fn, calls in cases]


def _run(what: str, fn, calls) -> Trigger:
    torch._dynamo.reset()
    compiled = torch.compile(fn)
    with capture_compile_events() as events:
        for call in calls:
            call(compiled)
    guard = events.recompiles[0].guards[0] if events.recompiles and events.recompiles[0].guards else "-"
    return Trigger(what, len(calls), events.graphs, len(events.recompiles), guard.split(": ", 1)[-1])


def guards(fn: Callable, *args, max_lines: int = 40) -> str:
    """The guards Dynamo installs when it compiles ``fn(*args)`` (``TORCH_LOGS="guards"``), as text."""
    lines: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record):
            lines.extend(record.getMessage().splitlines())

    logger = logging.getLogger("torch._dynamo.guards")
    torch._logging.set_logs(guards=True)
    handler, saved = _Keep(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        torch._dynamo.reset()
        torch.compile(fn)(*args)
    finally:
        logger.removeHandler(handler)
        logger.propagate = saved
        torch._logging.set_logs()
    body = [ln for ln in lines if ln.strip()]
    more = [f"... ({len(body) - max_lines} more lines)"] if len(body) > max_lines else []
    return "\n".join(body[:max_lines] + more)


@dataclass
class StreamRun:
    name: str
    latency_s: list[float]  # per request, host wall-clock with synchronize
    compiled_at: list[int]  # request indices during which at least one graph was compiled
    graphs: int
    limit_hit_at: int | None = None  # the request at which Dynamo hit the recompile limit and gave up
    limit_message: str = ""


def run_stream(name: str, serve: Callable, requests: list[torch.Tensor], device) -> StreamRun:
    """Send ``requests`` one at a time; record each one's latency and whether it compiled a graph."""
    latency, compiled_at, limit_at = [], [], None
    with capture_compile_events() as events, torch.no_grad():
        for i, x in enumerate(requests):
            before = events.snapshot().graphs
            synchronize(device)
            start = time.perf_counter()
            serve(x)
            synchronize(device)
            latency.append(time.perf_counter() - start)
            if events.snapshot().graphs > before:
                compiled_at.append(i)
            if events.limit_hits and limit_at is None:
                limit_at = i
    return StreamRun(name, latency, compiled_at, events.graphs, limit_at,
                     events.limit_hits[0] if events.limit_hits else "")


class GraphRunCounter:
    """A Dynamo backend that counts how often any of its graphs runs: a call during which the count does not move
    ran eagerly. By default it runs each captured graph as traced (no code generation, so a compile takes
    milliseconds); ``inner="inductor"`` compiles each graph with that backend first and counts its runs."""

    def __init__(self, inner: str | None = None):
        self.inner = inner
        self.graphs = 0  # graphs compiled
        self.runs = 0  # graph executions

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        self.graphs += 1
        compiled = gm.forward
        if self.inner is not None:
            from torch._dynamo.backends.registry import lookup_backend

            compiled = lookup_backend(self.inner)(gm, example_inputs)

        def run(*args):
            self.runs += 1
            return compiled(*args)

        return run


def graph_runs(serve: Callable, requests: list[torch.Tensor], counter: GraphRunCounter) -> list[int]:
    """Call ``serve`` on each of ``requests`` under ``no_grad``; how many compiled graphs ran for each (0: all
    of it ran eagerly)."""
    runs = []
    with torch.no_grad():
        for x in requests:
            before = counter.runs
            serve(x)
            runs.append(counter.runs - before)
    return runs


def bucket_plan(lengths: list[int], step: int, max_len: int) -> tuple[int, float]:
    """Pad each length up to a multiple of ``step``: how many distinct shapes (graphs) that makes, and the
    fraction of the padded positions that are padding (work thrown away)."""
    padded = [min(-(-t // step) * step, max_len) if step else t for t in lengths]
    shapes = len(set(padded))
    waste = 1 - sum(lengths) / sum(padded)
    return shapes, waste


def pooled(x: torch.Tensor) -> torch.Tensor:
    """A sequence summary: x (B, T, d) -> (B, d), the mean over T of a pointwise feature."""
    return (x.sin() * 2 + x.cos()).mean(dim=1)


def pooled_masked(x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """The same summary of a padded batch: valid (B, T) bool marks the real positions; padding is left out of
    both the sum and the count."""
    feature = (x.sin() * 2 + x.cos()) * valid[..., None]
    return feature.sum(dim=1) / valid.sum(dim=1, keepdim=True)
