"""Exercise 03's workload: a launch-bound residual MLP served at a small batch, behind a feature standardisation
written as serving code often is. Imported by the notebook, the grader and the submission's process (which
builds its model from the same seed as the grader's reference)."""

from __future__ import annotations

import torch
from torch import nn

from autograder.course.models import make_mlp

CONFIGS = {  # (width, depth, batch); the smoke size keeps CPU compiles to seconds
    "smoke": (64, 4, 4),
    "full": (512, 16, 16),
}


class Standardize(nn.Module):
    """Feature standardisation with statistics fixed at training time: ``(x - mean) / std``, feature by feature.
    x: (..., width) -> (..., width).

    Written in place, as the serving code it comes from wrote it: one allocation fewer per request."""

    def __init__(self, mean: torch.Tensor, std: torch.Tensor):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sub_(self.mean).div_(self.std)


def build_model(size: str, seed: int, device) -> nn.Sequential:
    """``Standardize`` then ``make_mlp``'s residual blocks and final LayerNorm, in eval mode, all drawn from
    ``seed``: x (batch, width) -> (batch, width)."""
    width, depth, _ = CONFIGS[size]
    gen = torch.Generator().manual_seed(seed + 1)
    mean = 0.5 * torch.randn(width, generator=gen)
    # std above 1: standardising the same tensor again and again (a benchmark loop on one input) stays bounded
    std = 1.5 + 1.5 * torch.rand(width, generator=gen)
    mlp = make_mlp(width, depth, device, seed=seed)
    return nn.Sequential(Standardize(mean, std), *mlp).to(device).eval()
