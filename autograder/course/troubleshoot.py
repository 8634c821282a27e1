"""Lesson 2's troubleshooting tools: bisect a failing or wrong compile across the pipeline's stages, and read
where compile time went. Each returns rows or text, so a notebook cell only prints them.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch._dynamo

# The official ablation ("Reporting Issues" in the torch.compile docs). Each backend adds one stage to the one before
# it, so a problem that first shows at a backend is in its stage. aot_eager_decomp_partition
# (torch/_dynamo/backends/debugging.py) is AOTAutograd with Inductor's decomposition table (select_decomp_table)
# and partitioner, and no code generation: a bug in a decomposition shows there, not at inductor. On torch 2.11 and
# 2.13 aot_eager already uses the same min-cut partitioner, so there the step adds the decompositions.
STAGES = (("eager", "Dynamo"), ("aot_eager", "AOTAutograd"),
          ("aot_eager_decomp_partition", "Inductor's decompositions"), ("inductor", "Inductor's code generation"))


@dataclass
class StageResult:
    backend: str
    stage: str  # the stage this backend adds
    error: str | None  # what compiling or running raised, if it did
    max_abs_diff: float | None  # largest |compiled - eager| over the output, if it ran
    ok: bool

    def line(self) -> str:
        what = (f"raised {self.error}" if self.error else
                f"max |diff| from eager {self.max_abs_diff:.3g}" + ("" if self.ok else "  <- differs"))
        return f"{self.backend:>26} (adds {self.stage:<26}): {what}"


def bisect(fn, *args, seed: int = 0, rtol: float = 1e-5, atol: float = 1e-6) -> list[StageResult]:
    """Run ``fn(*args)`` eagerly, then compiled with each backend of STAGES, every run from the same RNG seed.
    Each row says whether that backend raised or how far its output (one tensor) is from eager's."""
    torch.manual_seed(seed)
    try:
        expected = fn(*args)
    except Exception as err:
        raise ValueError(f"the function raises without torch.compile too ({type(err).__name__}: {err}): fix it "
                         "in eager first; the bisection compares compiled runs with a working eager one") from err
    rows = []
    for backend, stage in STAGES:
        torch._dynamo.reset()
        try:
            torch.manual_seed(seed)
            out = torch.compile(fn, backend=backend)(*args)
        except Exception as err:  # the point of a bisection: a crash is a result
            rows.append(StageResult(backend, stage, f"{type(err).__name__}: {str(err).splitlines()[0][:100]}",
                                    None, False))
            continue
        diff = (out.double() - expected.double()).abs().max().item() if out.numel() else 0.0
        ok = torch.allclose(out, expected, rtol=rtol, atol=atol)
        rows.append(StageResult(backend, stage, None, diff, ok))
    torch._dynamo.reset()
    return rows


def first_bad_stage(rows: list[StageResult]) -> str | None:
    """The stage of the first backend that raised or differed (None: every backend agrees with eager)."""
    return next((r.stage for r in rows if not r.ok), None)


# Phases torch times under these names (torch 2.6-2.13), outermost first; each contains the ones below it.
PHASES = (("_compile.compile_inner", "the whole compile: Dynamo and everything it calls"),
          ("bytecode_tracing", "Dynamo tracing your bytecode into an FX graph"),
          ("create_aot_dispatcher_function", "AOTAutograd (Inductor runs inside it)"),
          ("compile_fx_inner", "Inductor: lowering, fusion, code generation"),
          ("async_compile.wait", "waiting for the generated kernels to compile (C++ or Triton)"))


def compile_phases(top: int = 8) -> list[tuple[str, str, float, int]]:
    """Where compile time went since the last ``reset_compile_phases()``: (phase, what it is, total seconds, times
    run) for the PHASES this torch recorded, or else its ``top`` longest phases. Phases nest, so the seconds do
    not add up: read each against the whole compile."""
    from torch._dynamo.utils import compilation_time_metrics

    totals = {name: (sum(values), len(values)) for name, values in compilation_time_metrics.items() if values}
    known = [(name, what, *totals[name]) for name, what in PHASES if name in totals]
    if known:
        return known
    return sorted([(name, "", s, n) for name, (s, n) in totals.items()], key=lambda row: -row[2])[:top]


def reset_compile_phases() -> None:
    from torch._dynamo.utils import compilation_time_metrics

    compilation_time_metrics.clear()


def log_names(names: list[str]) -> list[tuple[str, bool, str]]:
    """For each TORCH_LOGS name: (name, whether this torch knows it, its own description where it has one)."""
    import torch._logging._internal as internal

    registry = internal.log_registry
    descriptions = getattr(registry, "artifact_descriptions", {})
    rows = []
    for name in names:
        component = name in registry.log_alias_to_log_qnames
        known = component or name in registry.artifact_names
        what = ("a component's whole log ('+name' for its debug level)" if component else
                descriptions.get(name, "") if known else "not in this torch")
        rows.append((name, known, what))
    return rows
