"""Exercise 06's workload: an early-exit network served at batch 8 (launch-bound), whose forward decides on the
host which way the batch goes, and what the grader runs in a fresh process to see a capture happen as that
process's first CUDA work.

``EarlyExit``: a first stage of residual blocks, then one decision for the whole batch. When every request's
hidden state stays within ``radius`` (typical requests), the batch leaves through a cheap exit (a LayerNorm);
when one request is atypical (its hidden state is large), the whole batch runs the deep stage. The decision is a
Python ``if`` on a tensor: the host reads a value the GPU computed (``Tensor.__bool__``, ``aten._local_scalar_dense``:
on a GPU a copy to the host and a wait). Eager mode pays that wait once per call; a CUDA-graph capture refuses it.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass

import torch
from torch import nn

from autograder.course.models import ResidualMLPBlock


@dataclass(frozen=True)
class Config:
    width: int
    first: int  # residual blocks before the decision
    deep: int  # residual blocks of the deep stage
    batch: int


CONFIGS = {  # only a CUDA GPU runs this exercise's checks; the smoke size is for its CPU tests and notebooks
    "smoke": Config(64, 2, 2, 4),
    "full": Config(256, 4, 8, 8),
}
RADIUS = 3.0  # a typical request's hidden state after the first stage: RMS 0.9-1.5; an atypical one's: 4.5 and up
OUTLIER_SCALE = 6.0  # an atypical batch: one request six times as large as the others


class EarlyExit(nn.Module):
    """x: (B, width) -> (B, width). ``first`` residual blocks; then, for the whole batch, ``exit(h)`` if every
    row's RMS is at most ``radius`` (``typical(h)``), else ``deep(h)`` (``deep`` residual blocks and a final
    LayerNorm)."""

    def __init__(self, width: int, first: int, deep: int, radius: float = RADIUS):
        super().__init__()
        self.first = nn.Sequential(*[ResidualMLPBlock(width) for _ in range(first)])
        self.exit = nn.LayerNorm(width)
        self.deep = nn.Sequential(*[ResidualMLPBlock(width) for _ in range(deep)], nn.LayerNorm(width))
        self.radius = radius

    def typical(self, h: torch.Tensor) -> torch.Tensor:
        """h: (B, width) -> a 0-dim bool tensor: every row's RMS is at most the radius."""
        return h.pow(2).mean(-1).amax() <= self.radius ** 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.first(x)
        if self.typical(h):  # most batches leave here, after a third of the work
            return self.exit(h)
        return self.deep(h)


def build_model(size: str, seed: int, device) -> EarlyExit:
    """The exercise's model, every weight drawn from ``seed``, in eval mode."""
    cfg = CONFIGS[size]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = EarlyExit(cfg.width, cfg.first, cfg.deep)
    return model.to(device).eval()


def make_batch(gen: torch.Generator, batch: int, width: int, atypical: bool, device) -> torch.Tensor:
    """A batch of requests: standard normal rows; an atypical batch has one row (drawn from ``gen``) scaled by
    ``OUTLIER_SCALE``, which sends the whole batch through the deep stage. Magnitudes decide the way, so an input
    made from this one with other signs (the speed check's chained inputs) goes the same way."""
    x = torch.randn(batch, width, generator=gen, device=device)
    if atypical:
        row = int(torch.randint(batch, (1,), generator=gen, device=device))
        x[row] *= OUTLIER_SCALE
    return x


PATTERN_CALLS = 6  # calls in a check's pattern of ways; a longer sequence (the timed blocks) repeats it


def atypical_pattern(seed: int, calls: int = PATTERN_CALLS) -> tuple[bool, ...]:
    """Which of ``calls`` calls (at least 3) get an atypical batch (True) and which a typical one (False), drawn
    from ``seed``: the grader derives the seed from the grading's secret, one per check, so the pattern differs from
    one secret to the next and a step cannot know a call's way from its index; it has to decide from the batch.
    Every pattern holds both switches, a typical batch followed by an atypical one and an atypical one followed by
    a typical one (hence both kinds), so that a step that captured one way only, or decides a call late, is wrong
    somewhere in the sequence. Deterministic: the same seed gives the same pattern (``random.Random``)."""
    if calls < 3:
        raise ValueError(f"both switches need at least 3 calls, got {calls}")
    rng = random.Random(seed)
    while True:  # rejection: 52 of the 64 patterns of 6 calls qualify, 2 of the 8 of 3 (T,A,T and A,T,A)
        pattern = tuple(rng.random() < 0.5 for _ in range(calls))
        if {(False, True), (True, False)} <= set(zip(pattern[:-1], pattern[1:], strict=True)):
            return pattern


def atypical_call(pattern: tuple[bool, ...], index: int) -> bool:
    """Whether call ``index`` of a sequence gets an atypical batch: ``pattern`` (from :func:`atypical_pattern`),
    repeated for a sequence longer than it."""
    return pattern[index % len(pattern)]


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
    model = build_model(size, seed, "cuda")
    with torch.no_grad():
        _KEPT.append(make_graphed_step(model, CONFIGS[size].batch))
    return callable(_KEPT[-1])


def kept_step():
    """The step made by :func:`capture_in_fresh_process`."""
    return _KEPT[-1]


def fresh_counts() -> dict:
    """CUDA-graph captures (during make_graphed_step and the calls since) and torch.compile graphs in this
    process: what it says about itself (self-reported)."""
    graphs = int(torch._dynamo.utils.counters["stats"]["unique_graphs"]) if "torch._dynamo" in sys.modules else 0
    return {"captures": len(_CAPTURES), "graphs": graphs}
