"""Lesson 2's windows into the compile pipeline: Dynamo's logs, AOTAutograd's graphs, Inductor's code,
compile times cold and warm. Each returns text or numbers, so a notebook cell only prints or plots.
"""

from __future__ import annotations

import logging
import re
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch._dynamo
import torch._logging

from autograder.core.timing import synchronize


@contextmanager
def capture_logs(**artifacts):
    """Collect torch's log records for ``artifacts`` (``torch._logging.set_logs`` names, e.g. guards=True)
    into a list of strings instead of printing them (TORCH_LOGS output would land as stderr in a notebook)."""
    messages: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    def torch_loggers():  # set_logs puts its stream handlers on several torch.* loggers
        return [logging.getLogger(name) for name in list(logging.root.manager.loggerDict)
                if name == "torch" or name.startswith("torch.")]

    saved = {lg: lg.handlers[:] for lg in torch_loggers()}
    torch._logging.set_logs(**artifacts)
    keep = _Keep(logging.DEBUG)
    swapped = []
    for lg in torch_loggers():
        if lg.handlers:
            for handler in lg.handlers[:]:
                lg.removeHandler(handler)
            lg.addHandler(keep)
            swapped.append(lg)
    try:
        yield messages
    finally:
        torch._logging.set_logs()
        for lg in swapped + list(saved):
            for handler in lg.handlers[:]:
                lg.removeHandler(handler)
            for handler in saved.get(lg, []):
                lg.addHandler(handler)


def guard_lines(messages: list[str]) -> list[str]:
    """The guards of a ``guards`` log record ('| +- TENSOR_MATCH: ...'), without tree drawing and comments."""
    lines = []
    for message in messages:
        for line in message.splitlines():
            text = line.strip().lstrip("|+- ").split("  #")[0].strip()
            if re.match(r"^[A-Z_]+: \S", text):
                lines.append(text)
    return lines


@dataclass
class AOTGraphs:
    forward: list[str]  # readable code of each forward graph
    backward: list[str]  # readable code of each backward graph


def aot_graphs(fn, *args, decompositions=None) -> AOTGraphs:
    """Compile ``fn`` with AOTAutograd only (no code generation) and keep the forward and backward graphs it
    builds; runs one forward and, when the output needs grad, one backward. ``decompositions``: a table such
    as ``torch._decomp.core_aten_decompositions()``, to see composite ops broken into simpler ones."""
    from torch._dynamo.backends.common import aot_autograd

    graphs = AOTGraphs([], [])

    def keeper(store):
        def compiler(gm, example_inputs):
            from functorch.compile import make_boxed_func

            store.append(gm.print_readable(print_output=False))
            return make_boxed_func(gm.forward)  # AOTAutograd calls compiled graphs with a list of args
        return compiler

    torch._dynamo.reset()
    backend = aot_autograd(fw_compiler=keeper(graphs.forward), bw_compiler=keeper(graphs.backward),
                           decompositions=decompositions)
    out = torch.compile(fn, backend=backend)(*args)
    if isinstance(out, torch.Tensor) and out.requires_grad:
        out.sum().backward()
    return graphs


_KERNEL_DEF = re.compile(r"^(\w+) = async_compile\.\w+\(", re.M)


def inductor_code(fn, *args) -> tuple[object, str]:
    """Run ``fn`` compiled by Inductor and return (result, the generated Python module's source)."""
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    result, sources = run_and_get_code(torch.compile(fn), *args)
    return result, "\n".join(sources)


def kernel_names(source: str) -> list[str]:
    """Kernels defined in Inductor's output code: triton_* on a GPU, cpp_fused_* on a CPU."""
    return _KERNEL_DEF.findall(source)


def kernel_source(source: str, name: str, max_lines: int = 40) -> str:
    """The generated source of one kernel (its Triton or C++ body), at most ``max_lines`` lines."""
    start = source.find(f"{name} = async_compile.")
    if start < 0:
        return ""
    body = source[start:].split("''', device_str=", 1)[0].split("''')", 1)[0]
    lines = body.splitlines()
    return "\n".join(lines[:max_lines] + (["    ..."] if len(lines) > max_lines else []))


@contextmanager
def caches_off():
    """Inductor's on-disk caches switched off, as on a fresh machine (for honest cold compile times)."""
    import torch._inductor.config as inductor_config

    with inductor_config.patch(force_disable_caches=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "dynamo_pgo force disabled": expected when the caches are off
        yield


@contextmanager
def fresh_cache_dir():
    """An empty Inductor cache directory for the block, removed after it: the first compile in it is cold, as on a
    fresh machine, and fills it; a compile after ``torch._dynamo.reset()`` then reads what the first one wrote."""
    from torch._inductor import utils

    fresh = getattr(utils, "fresh_cache", None) or utils.fresh_inductor_cache  # the older name (torch 2.8 and before)
    with fresh():
        yield


def first_call_seconds(fn, *args, cold: bool, device=None) -> float:
    """Seconds of the first call of ``torch.compile(fn)`` after ``torch._dynamo.reset()``. ``cold``: with
    Inductor's on-disk caches switched off, as on a fresh machine; otherwise whatever the caches hold."""
    from contextlib import nullcontext

    torch._dynamo.reset()
    compiled = torch.compile(fn)
    with caches_off() if cold else nullcontext():
        synchronize(device)
        start = time.perf_counter()
        compiled(*args)
        synchronize(device)
    return time.perf_counter() - start


@dataclass
class ColdCall:
    seconds: float  # the model's first call, compiles included
    events: object  # CompileEvents: graphs, recompiles, generated kernels
    block_seconds: list[float]  # regional: each block's first call, in order; empty for a whole-model compile


def cold_first_call(model: torch.nn.Sequential, x: torch.Tensor, *, regional: bool, device=None) -> ColdCall:
    """The first call of a stack of blocks compiled whole (``torch.compile(model)``) or block by block (each
    block's ``.compile()``), with Inductor's on-disk caches off and Dynamo reset first, so every graph is traced and
    generated from scratch. The events count the graphs, recompiles and kernels that compile made: the code it
    generated, which is what a cold compile pays for. Regional: the blocks are called one by one, each timed."""
    from autograder.core.compile_events import capture_compile_events

    torch._dynamo.reset()
    blocks, forward, block_seconds = list(model), model, []
    if regional:
        for block in blocks:
            block.compile()
    else:
        forward = torch.compile(model)
    with capture_compile_events() as events, caches_off():
        synchronize(device)
        start = time.perf_counter()
        if regional:
            for block in blocks:  # what model(x) does, with a clock between the blocks
                begin = time.perf_counter()
                x = block(x)
                synchronize(device)
                block_seconds.append(time.perf_counter() - begin)
        else:
            forward(x)
        synchronize(device)
        seconds = time.perf_counter() - start
    return ColdCall(seconds, events, block_seconds)


def aten_ops(graph_code: str) -> list[str]:
    """The ATen ops called in a readable AOT graph, in order: ['mm', 'add', 'gelu', ...]."""
    return re.findall(r"torch\.ops\.aten\.(\w+)\.", graph_code)


@dataclass
class Saved:
    kib: float  # bytes kept for the backward, in KiB, each storage counted once
    tensors: int  # how many distinct storages


def saved_for_backward(fn, *args, exclude=()) -> Saved:
    """What autograd keeps for the backward while ``fn(*args)`` runs its forward (``fn`` returns the loss), eager or
    compiled alike: ``torch.autograd.graph.saved_tensors_hooks`` sees every tensor an autograd node saves, AOTAutograd's
    compiled function included. Storages counted once; those of ``exclude`` (the parameters: kept anyway) left out.
    Runs the backward afterwards, so the graph is freed; the caller clears the gradients."""
    skip = {t.untyped_storage().data_ptr() for t in exclude}
    kept: dict[int, int] = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in skip:
            kept[storage.data_ptr()] = storage.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = fn(*args)
    loss.backward()
    return Saved(sum(kept.values()) / 2**10, len(kept))
