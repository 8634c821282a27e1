"""Lesson 6's demos: launch overhead, what a CUDA-graph capture refuses, CUDAGraph Trees' generations, and the
batch size where graphs stop paying. Every function here needs a CUDA GPU."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from autograder.core.profiling import profile_call
from autograder.core.timing import time_fn


def tiny_chain(x: torch.Tensor, ops: int) -> torch.Tensor:
    """``ops`` small pointwise kernels in a row (eager: one launch each)."""
    for _ in range(ops):
        x = x * 1.0001 + 0.0001
    return x


def capture(fn: Callable, *static_inputs: torch.Tensor, warmup: int = 3, pool=None):
    """Warm ``fn`` up on a side stream, capture one call into a CUDA graph; returns (graph, static output).

    The recipe from the lesson: the warm-up runs lazy initialisation (cuBLAS handles, workspaces) outside
    the capture; the capture records kernels reading ``static_inputs``' memory and writing the output's."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn(*static_inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=pool):
        out = fn(*static_inputs)
    return graph, out


@dataclass
class LaunchRow:
    ops: int
    eager_s: float  # host wall-clock per call
    kernel_s: float  # summed GPU kernel time per call (profiler)
    graph_s: float  # one replay per call


def launch_overhead(device, op_counts=(10, 50, 100, 200), numel: int = 1024) -> list[LaunchRow]:
    """Per call: wall time eager, GPU kernel time, wall time as one CUDA-graph replay, for chains of tiny ops."""
    rows = []
    x = torch.randn(numel, device=device)
    for ops in op_counts:
        eager = time_fn(tiny_chain, x, ops, name=f"{ops} ops", blocks=11).median_s
        kernels = profile_call(tiny_chain, x, ops, device=device).device_time_s
        graph, _ = capture(lambda t, ops=ops: tiny_chain(t, ops), x)
        replay = time_fn(graph.replay, name="replay", device=device, blocks=11).median_s
        rows.append(LaunchRow(ops, eager, kernels, replay))
    return rows


def first_error(err: BaseException) -> BaseException:
    """The first error of a chain: a refused call inside ``torch.cuda.graph`` raises, then ending the capture
    raises again ("operation failed due to a previous error during capture", which reads like a broken GPU)
    with the first as its context. The first names the cause."""
    seen = {id(err)}
    while err.__context__ is not None and id(err.__context__) not in seen:
        err = err.__context__
        seen.add(id(err))
    return err


def try_capture(what: str, fn: Callable, x: torch.Tensor, why: str = "") -> str:
    """Capture ``fn(x)`` after a warm-up; report what happened in one line: captured, or refused with the first
    error raised inside the capture and ``why`` (the cause in words)."""
    try:
        graph, out = capture(fn, x)
        graph.replay()
        torch.cuda.synchronize()
        return f"{what}: captured"
    except Exception as err:
        torch.cuda.synchronize()
        first = first_error(err)
        line = (str(first).strip().splitlines() or [""])[0]
        return f"{what}: refused{f' ({why})' if why else ''}: {type(first).__name__}: {line[:110]}"


@dataclass
class BatchRow:
    batch: int
    eager_s: float
    graph_s: float

    @property
    def speedup(self) -> float:
        return self.eager_s / self.graph_s


def batch_sweep(model: torch.nn.Module, width: int, batches, device) -> list[BatchRow]:
    """Eager against a captured graph (copy in, replay, clone out) for each batch size."""
    rows = []
    with torch.no_grad():
        for batch in batches:
            x = torch.randn(batch, width, device=device)
            static_in = x.clone()
            graph, static_out = capture(model, static_in)

            def step(t, graph=graph, static_in=static_in, static_out=static_out):
                static_in.copy_(t)
                graph.replay()
                return static_out.clone()

            eager = time_fn(model, x, name="eager", blocks=11).median_s
            graphed = time_fn(step, x, name="graphed", blocks=11).median_s
            rows.append(BatchRow(batch, eager, graphed))
            del graph, static_in, static_out
    return rows
