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


def capture_in_fresh_process(make_graphed_step, size: str, seed: int) -> dict:
    """In a process that has done no CUDA work yet: build the model on the GPU and call
    ``make_graphed_step(model, batch)``, counting CUDA-graph captures and torch.compile graphs (what this
    process says about itself: self-reported). Returns the counts; the step is kept for the grader's calls."""
    captures = []
    begin = torch.cuda.CUDAGraph.capture_begin

    def counting(self, *args, **kwargs):
        captures.append(1)
        return begin(self, *args, **kwargs)

    torch.cuda.CUDAGraph.capture_begin = counting
    try:
        width, depth, batch = CONFIGS[size]
        model = make_mlp(width, depth, "cuda", seed=seed)
        with torch.no_grad():
            step = make_graphed_step(model, batch)
    finally:
        torch.cuda.CUDAGraph.capture_begin = begin
    graphs = int(torch._dynamo.utils.counters["stats"]["unique_graphs"]) if "torch._dynamo" in sys.modules else 0
    _KEPT.append(step)
    return {"captures": len(captures), "graphs": graphs, "callable": callable(step)}


_KEPT: list = []


def kept_step():
    """The step made by :func:`capture_in_fresh_process`."""
    return _KEPT[-1]
