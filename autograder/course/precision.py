"""Lesson 3's precision study: the same model in fp32, with TF32 matmuls and under bf16 autocast, eager and
compiled — time per call and error against a float64 reference. Returns rows, so a cell only prints them.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass

import torch
import torch._dynamo

from autograder.core.timing import time_fn

PRECISIONS = ("fp32", "tf32", "bf16 autocast")


@contextmanager
def precision(name: str, device: torch.device | str):
    """Run the block in one of PRECISIONS: fp32 as is; TF32 matmuls (``set_float32_matmul_precision("high")``,
    put back afterwards); or ``torch.autocast`` to bfloat16 on ``device``'s type."""
    if name == "fp32":
        yield
    elif name == "tf32":
        before = torch.get_float32_matmul_precision()
        torch.set_float32_matmul_precision("high")
        try:
            yield
        finally:
            torch.set_float32_matmul_precision(before)
    elif name == "bf16 autocast":
        with torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16):
            yield
    else:
        raise ValueError(f"unknown precision {name!r}: one of {PRECISIONS}")


def relative_error(out: torch.Tensor, reference: torch.Tensor) -> float:
    """||out - reference|| / ||reference||, in float64."""
    reference = reference.double()
    return ((out.double() - reference).norm() / reference.norm()).item()


@dataclass
class PrecisionResult:
    precision: str
    compiled: bool
    per_call_s: float
    first_call_s: float
    rel_error: float  # against the float64 model
    out_dtype: torch.dtype

    def line(self) -> str:
        how = "compiled" if self.compiled else "eager"
        return (f"{self.precision:>13} {how:>8}: {self.per_call_s * 1e6:9.1f} us per call, relative error "
                f"{self.rel_error:.1e} (output {str(self.out_dtype).removeprefix('torch.')})")


def measure_precisions(model: torch.nn.Module, x: torch.Tensor, *, blocks: int = 7) -> list[PrecisionResult]:
    """Each of PRECISIONS, eager then compiled (a fresh compile each), under ``torch.no_grad()``. The error is
    measured against a float64 copy of ``model`` on ``x`` in float64."""
    device = x.device
    with torch.no_grad():
        reference = copy.deepcopy(model).double()(x.double())
    rows = []
    for name in PRECISIONS:
        for compiled in (False, True):
            torch._dynamo.reset()
            fn = torch.compile(model) if compiled else model

            def call(inp, fn=fn, name=name):
                with torch.no_grad(), precision(name, device):
                    return fn(inp)

            timing = time_fn(call, x, device=device, name=f"{name} {'compiled' if compiled else 'eager'}",
                             blocks=blocks)
            out = call(x)
            rows.append(PrecisionResult(name, compiled, timing.median_s, timing.first_call_s,
                                        relative_error(out, reference), out.dtype))
    torch._dynamo.reset()
    return rows
