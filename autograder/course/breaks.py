"""Lesson 4's graph-break demos: small functions that each break (or do not break) Dynamo's graph in one way,
a quiet ``explain``, and functions with a chosen number of breaks for the cost-of-a-break sweep."""

from __future__ import annotations

import contextlib
import io
import logging
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from autograder.core.timing import synchronize, time_fn

log = logging.getLogger("course.lesson04")
SEEN_SHAPES: list = []  # written by with_list_append: a Python side effect


def with_print(x):
    y = x.sin()
    print("y is ready")
    return y.cos()


def with_logging(x):
    y = x.sin()
    log.info("y has shape %s", tuple(y.shape))
    return y.cos()


def with_item(x):
    y = x.sin()
    scale = y.abs().max().item()  # a Python float from a tensor
    return y.cos() / scale


def with_data_dependent_if(x):
    y = x.sin()
    if y.sum() > 0:  # Python needs the tensor's value to choose
        return y.cos()
    return -y


def with_untraceable_call(x):
    y = x.sin()
    tag = zlib.crc32(b"a C function Dynamo cannot look into")
    return y.cos() + (tag % 2)


def with_dynamic_shape(x):
    y = x.sin()
    return y[y > 0].cos()  # how many elements survive depends on the values


def with_numpy(x):
    y = x.sin()
    return torch.from_numpy(np.tanh(y.numpy())).cos()  # traced: Dynamo maps NumPy calls to torch ops


def with_list_append(x):
    y = x.sin()
    SEEN_SHAPES.append(tuple(y.shape))  # a side effect on a Python list: replayed after the graph runs
    return y.cos()


CAUSES: dict[str, Callable] = {
    "print": with_print,
    "logging call": with_logging,
    ".item()": with_item,
    "data-dependent if": with_data_dependent_if,
    "untraceable C call (zlib.crc32)": with_untraceable_call,
    "data-dependent shape (y[y > 0])": with_dynamic_shape,
    "NumPy on a tensor": with_numpy,
    "append to a Python list": with_list_append,
}


@dataclass
class Explained:
    graphs: int
    breaks: int
    reasons: list[str]  # first line of each break reason


def explain(fn: Callable, *args) -> Explained:
    """``torch._dynamo.explain(fn)(*args)``, with its printing and Dynamo's warnings kept out of the output.

    explain() calls ``torch._dynamo.reset()`` before and after: never run it between compiling something and
    timing it."""
    quiet = io.StringIO()
    dynamo_log = logging.getLogger("torch._dynamo")
    level = dynamo_log.level
    dynamo_log.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            report = torch._dynamo.explain(fn)(*args)
    finally:
        dynamo_log.setLevel(level)
    reasons = [str(b.reason).strip().splitlines()[0] for b in report.break_reasons]
    return Explained(report.graph_count, report.graph_break_count, reasons)


def stages_with_breaks(stages: int, breaks: int) -> Callable:
    """x -> x after ``stages`` pointwise stages (sin, scale, shift), with ``breaks`` explicit graph breaks
    spread evenly between them. Eager: 3 kernels per stage. Compiled: one fused kernel per piece.

    The code is straight-line (generated), not a ``for`` loop: a break inside a loop would make Dynamo skip
    the whole function instead (section 5 of lesson 4)."""
    if not 0 <= breaks < stages:
        raise ValueError(f"breaks must be in 0..{stages - 1}, got {breaks}")
    after = {round((i + 1) * stages / (breaks + 1)) for i in range(breaks)}
    lines = [f"def stages{stages}_breaks{breaks}(x):"]
    for i in range(stages):
        if i in after:
            lines.append("    torch._dynamo.graph_break()")
        lines.append("    x = torch.sin(x) * 1.01 + 0.1")
    lines.append("    return x")
    namespace = {"torch": torch}
    exec(compile("\n".join(lines), f"<stages {stages}, breaks {breaks}>", "exec"), namespace)  # noqa: S102
    return namespace[f"stages{stages}_breaks{breaks}"]


def gated_broken(x, steps: int = 8):
    """A loop with a data-dependent Python ``if`` in it: the break inside the loop makes Dynamo skip the frame."""
    for _ in range(steps):
        x = torch.sin(x) * 1.5
        if x.abs().mean().item() > 0.6:
            x = x * 0.5
    return x


def gated_fixed(x, steps: int = 8):
    """gated_broken with the branch as data: both sides computed, torch.where picks. One graph."""
    for _ in range(steps):
        x = torch.sin(x) * 1.5
        x = torch.where(x.abs().mean() > 0.6, x * 0.5, x)
    return x


def sweep_breaks(x: torch.Tensor, stages: int, break_counts: list[int], blocks: int) -> dict:
    """Median time per call of the stage chain in eager mode and compiled with each number of breaks.
    Returns {"eager_s": float, "compiled_s": {breaks: seconds}, "compile_s": {breaks: seconds}}."""
    eager = time_fn(stages_with_breaks(stages, 0), x, name="eager", blocks=blocks)
    compiled, compile_s = {}, {}
    for k in break_counts:
        torch._dynamo.reset()
        fn = torch.compile(stages_with_breaks(stages, k))
        start = time.perf_counter()
        fn(x)
        synchronize(x.device)
        compile_s[k] = time.perf_counter() - start
        compiled[k] = time_fn(fn, x, name=f"{k} breaks", blocks=blocks).median_s
    return {"eager_s": eager.median_s, "compiled_s": compiled, "compile_s": compile_s}
