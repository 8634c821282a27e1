"""Compile modes side by side (lesson 3): what each one switches on, what it costs to compile and what it buys.

A mode here is ``"eager"`` (no compile) or one of ``torch.compile``'s modes. Times follow the course protocol
(``autograder.timing``); compile cost is the wall time of the first three calls (compile, and for CUDA-graph
modes the warm-up and recording calls), measured with Inductor's caches off so it is a cold compile.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import torch

from autograder.pipeline import caches_off
from autograder.speed import gpu_busy_fraction
from autograder.timing import synchronize, time_fn

MODES = ("default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def mode_options() -> dict[str, dict]:
    """Each mode this torch knows and the Inductor options it sets (``torch._inductor.list_mode_options()``)."""
    return torch._inductor.list_mode_options()


def compile_with(model: Callable, mode: str) -> Callable:
    """``model`` itself for ``"eager"``, else ``torch.compile(model, mode=mode)``."""
    if mode == "eager":
        return model
    return torch.compile(model) if mode == "default" else torch.compile(model, mode=mode)


@dataclass
class ModeResult:
    mode: str
    first_calls_s: float  # make + first three calls (compile, CUDA-graph warm-up and recording)
    per_call_s: float  # steady state, median of blocks
    gpu_busy: float | None  # kernel time over wall time per call (GPU only)

    def line(self) -> str:
        busy = f", GPU busy {self.gpu_busy:4.0%}" if self.gpu_busy is not None else ""
        return (f"{self.mode:>27}: first 3 calls {self.first_calls_s:6.2f} s, then "
                f"{self.per_call_s * 1e6:9.1f} us per call{busy}")


def measure_mode(make_model: Callable[[], torch.nn.Module], x: torch.Tensor, mode: str, *, cold: bool = True,
                 blocks: int = 21) -> ModeResult:
    """Compile a fresh model in ``mode`` (after ``torch._dynamo.reset()``) and time it on ``x`` under no_grad."""
    torch._dynamo.reset()
    model = make_model()
    with torch.no_grad():
        synchronize(x.device)
        start = time.perf_counter()
        with caches_off() if cold and mode != "eager" else nullcontext():
            fn = compile_with(model, mode)
            for _ in range(3):
                fn(x)
            synchronize(x.device)
        first = time.perf_counter() - start
        timing = time_fn(fn, x, name=mode, blocks=blocks)
        busy = gpu_busy_fraction(fn, (x,), x.device, timing.median_s) if x.device.type == "cuda" else None
    return ModeResult(mode, first, timing.median_s, busy)


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
