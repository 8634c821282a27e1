"""Exercise 04's workload: a stack of residual blocks whose forward breaks Dynamo's graph, and what the grader
runs in the submission's process to compile the learner's block and count what Dynamo did (self-reported)."""

from __future__ import annotations

import traceback

import torch

from autograder.core.compile_events import capture_compile_events
from autograder.course.models import BrokenBlock, make_block_stack

# Full size: enough work per kernel that the GPU, not the host, sets both sides' pace (d512 batch 16 was
# host-bound: 2.47x median over 20 gradings, 1.72x..3.58x; d256 batch 128 measured 3.0x in one process, ratios
# 2.97..3.24: benchmarks/design/ex04-sizes-2026-11-24.json).
CONFIGS = {  # (d, depth, batch, seq)
    "smoke": (64, 4, 2, 16),
    "full": (256, 4, 128, 256),
}


def build_stack(block_cls, size: str, seed: int, device) -> torch.nn.Module:
    """``depth`` blocks of ``block_cls`` with the weights a BrokenBlock stack of ``seed`` has."""
    if not isinstance(block_cls, type) or not issubclass(block_cls, torch.nn.Module):
        raise TypeError(f"FixedBlock must be a class (a subclass of BrokenBlock), got {type(block_cls).__name__}")
    d, depth, _, _ = CONFIGS[size]
    return make_block_stack(block_cls, d, depth, device, seed=seed)


def reference_stack(size: str, seed: int, device) -> torch.nn.Module:
    return build_stack(BrokenBlock, size, seed, device)


def compile_model(model):
    """The grader's own compile, with the course's configuration (the worker restores it first)."""
    return torch.compile(model)


def _where(err: BaseException) -> str:
    text = "".join(traceback.format_exception(err))
    for line in reversed(text.splitlines()):
        if "in forward" in line and "FixedBlock" not in line and "torch/" not in line:
            return line.strip()
    return ""


def count_graphs(model, *xs) -> dict:
    """fullgraph=True first (its error names the first break), then the default compile over ``xs``, counted.
    What this returns is what this process says: the grader reports it as self-reported."""
    from autograder.core import settings

    torch._dynamo.reset()
    config = settings.compiler_config()
    with torch.no_grad():
        model(xs[0])  # eager first: an unwritten or crashing forward is reported as such
        # A forward that sets the compiler's configuration (capture_scalar_outputs...) would change the compiles
        # below, which stand for the course's torch.compile: said, and put back (a red team's case).
        moved = settings.changed_config(config, settings.compiler_config())
        if moved:
            settings.restore_config(config)
            return {"config_changed": moved[:5]}
        try:
            strict = torch.compile(model, fullgraph=True)
            for x in xs[:2]:
                strict(x)
        except Exception as err:
            text = str(err).strip()
            return {"fullgraph_error": text.splitlines()[0] if text else type(err).__name__, "where": _where(err)}
        torch._dynamo.reset()
        compiled = torch.compile(model)
        with capture_compile_events() as events:
            for x in xs:
                compiled(x)
        events = events.snapshot()
    return {"graphs": events.graphs, "kernels": events.kernels,
            "graph_breaks": [str(b) for b in events.graph_breaks[:3]], "n_breaks": len(events.graph_breaks),
            "recompiles": [str(r) for r in events.recompiles[:2]], "n_recompiles": len(events.recompiles)}
