"""Compile modes side by side (lesson 3): what each one switches on, what it costs to compile and what it buys.

A mode here is ``"eager"`` (no compile) or one of ``torch.compile``'s modes. Times follow the course protocol
(``autograder.timing``); compile cost is the wall time of the first three calls (compile, and for CUDA-graph
modes the warm-up and recording calls), measured with Inductor's caches off so it is a cold compile.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

import torch

from autograder.core.profiling import gpu_busy_fraction
from autograder.core.timing import synchronize, time_fn
from autograder.course.pipeline import caches_off

MODES = ("default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def mode_options() -> dict[str, dict]:
    """Each mode this torch knows and the Inductor options it sets (``torch._inductor.list_mode_options()``)."""
    return torch._inductor.list_mode_options()


def compile_with(model: Callable, mode: str) -> Callable:
    """``model`` itself for ``"eager"``, else ``torch.compile(model, mode=mode)``."""
    if mode == "eager":
        return model
    return torch.compile(model) if mode == "default" else torch.compile(model, mode=mode)


@contextlib.contextmanager
def autotune_summary():
    """Collect what max-autotune prints while it compiles — a table of every candidate kernel per matmul on
    stderr, tens of lines each, and an error line per Triton config that does not fit the GPU — and yield a
    list that receives one summary line per autotuned op instead."""
    summary: list[str] = []
    captured = io.StringIO()
    rejected = []

    class _Count(logging.Filter):  # "Runtime error during autotuning ... Ignoring this choice."
        def filter(self, record):
            rejected.append(record)
            return False

    logger, count = logging.getLogger("torch._inductor.select_algorithm"), _Count()
    logger.addFilter(count)
    try:
        with contextlib.redirect_stderr(captured):
            yield summary
    finally:
        logger.removeFilter(count)
        text = captured.getvalue()
        summary += summarise_autotune(text)
        rest = re.sub(AUTOTUNE_BLOCK, "", text)
        if rest.strip():  # anything else (a warning) still reaches stderr
            sys.stderr.write(rest)
        if rejected:
            summary.append(f"{len(rejected)} Triton config(s) did not fit this GPU and were skipped")


AUTOTUNE_BLOCK = re.compile(r"Autotune Choices Stats:\n.*\n|AUTOTUNE \S+\(.*?\)\n(?:.*\n)*?.*AUTOTUNE benchmarking "
                            r"takes .*choices.*\n?")


def summarise_autotune(text: str) -> list[str]:
    """One line per ``AUTOTUNE op(sizes)`` table in Inductor's autotuning output: the winner and the count."""
    lines = []
    for match in re.finditer(r"AUTOTUNE (\S+\(.*?\))\n(?:.*\n)*?\s+(\S+) ([0-9.]+) ms 100\.0%.*\n"
                             r"(?:.*\n)*?.*takes ([0-9.]+) seconds.*?for (\d+) choices", text):
        op, best, best_ms, seconds, choices = match.groups()
        lines.append(f"autotuned {op}: {choices} candidate kernels timed in {float(seconds):.1f} s; "
                     f"fastest {best} ({float(best_ms) * 1e3:.1f} us)")
    return lines


@dataclass
class ModeResult:
    mode: str
    first_calls_s: float  # make + first three calls (compile, CUDA-graph warm-up and recording)
    per_call_s: float  # steady state, median of blocks
    gpu_busy: float | None  # kernel time over wall time per call (GPU only)
    autotune: list[str] = field(default_factory=list)  # max-autotune's choices, one line per op

    def line(self) -> str:
        busy = f", GPU busy {self.gpu_busy:4.0%}" if self.gpu_busy is not None else ""
        return (f"{self.mode:>27}: first 3 calls {self.first_calls_s:6.2f} s, then "
                f"{self.per_call_s * 1e6:9.1f} us per call{busy}")


def measure_modes(make_model: Callable[[], torch.nn.Module], x: torch.Tensor, modes, *, cold: bool = True,
                  blocks: int = 21, rounds: int = 3) -> list[ModeResult]:
    """Each mode on a fresh model, under no_grad: the first three calls timed (with Inductor's caches off when
    ``cold``), then every mode timed in ``rounds`` interleaved rounds (order rotating), so drift in the host's
    speed hits all modes alike; a mode's time is the median of its round medians."""
    torch._dynamo.reset()
    fns, firsts, autotuned = {}, {}, {}
    with torch.no_grad():
        for mode in modes:
            model = make_model()
            synchronize(x.device)
            start = time.perf_counter()
            with caches_off() if cold and mode != "eager" else nullcontext(), autotune_summary() as notes:
                fns[mode] = fn = compile_with(model, mode)
                for _ in range(3):
                    fn(x)
                synchronize(x.device)
            firsts[mode] = time.perf_counter() - start
            autotuned[mode] = notes
        per_round: dict[str, list[float]] = {m: [] for m in modes}
        for r in range(rounds):
            order = list(modes)[r % len(modes):] + list(modes)[:r % len(modes)]
            for mode in order:
                per_round[mode].append(time_fn(fns[mode], x, name=mode, blocks=max(1, blocks // rounds)).median_s)
        results = []
        for mode in modes:
            median = statistics.median(per_round[mode])
            busy = gpu_busy_fraction(fns[mode], (x,), x.device, median) if x.device.type == "cuda" else None
            results.append(ModeResult(mode, firsts[mode], median, busy, autotuned[mode]))
    return results


def measure_batches(make_model: Callable[[], torch.nn.Module], width: int, batches, modes, device,
                    blocks: int = 7) -> dict[str, dict[int, float]]:
    """Seconds per call for each mode and batch size (one compiled model per mode, every batch through it)."""
    out: dict[str, dict[int, float]] = {}
    for mode in modes:
        torch._dynamo.reset()
        fn = compile_with(make_model(), mode)
        with torch.no_grad():
            out[mode] = {b: time_fn(fn, torch.randn(b, width, device=device), name=mode, blocks=blocks).median_s
                         for b in batches}
    return out
