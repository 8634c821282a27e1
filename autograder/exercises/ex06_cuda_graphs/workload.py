"""Exercise 06's workload: a launch-bound MLP at batch 8, and what the grader runs in a fresh process to see a
capture happen as that process's first CUDA work."""

from __future__ import annotations

import sys

import torch

from autograder.course.models import make_mlp

CONFIGS = {  # (width, depth, batch): only a CUDA GPU runs this exercise; the smoke size is for its tests
    "smoke": (64, 4, 4),
    "full": (256, 8, 8),
}


def build_model(size: str, seed: int, device) -> torch.nn.Module:
    width, depth, _ = CONFIGS[size]
    return make_mlp(width, depth, device, seed=seed)


_CAPTURES: list = []
_KEPT: list = []


def capture_in_fresh_process(make_graphed_step, size: str, seed: int) -> bool:
    """In a process that has done no CUDA work yet: count every CUDA-graph capture from now on, build the model on
    the GPU and call ``make_graphed_step(model, batch)``; the step is kept for the grader's calls."""
    begin = torch.cuda.CUDAGraph.capture_begin

    def counting(self, *args, **kwargs):
        _CAPTURES.append(1)
        return begin(self, *args, **kwargs)

    torch.cuda.CUDAGraph.capture_begin = counting
    width, depth, batch = CONFIGS[size]
    model = make_mlp(width, depth, "cuda", seed=seed)
    with torch.no_grad():
        _KEPT.append(make_graphed_step(model, batch))
    return callable(_KEPT[-1])


def kept_step():
    """The step made by :func:`capture_in_fresh_process`."""
    return _KEPT[-1]


def fresh_counts() -> dict:
    """CUDA-graph captures (during make_graphed_step and the calls since) and torch.compile graphs in this
    process: what it says about itself (self-reported)."""
    graphs = int(torch._dynamo.utils.counters["stats"]["unique_graphs"]) if "torch._dynamo" in sys.modules else 0
    return {"captures": len(_CAPTURES), "graphs": graphs}
