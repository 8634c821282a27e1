"""Where a notebook runs: device and problem size, from the papermill parameters DEVICE and SIZE."""

from __future__ import annotations

import platform
from dataclasses import dataclass

import torch

SIZES = ("smoke", "full")


@dataclass(frozen=True)
class Context:
    device: torch.device
    size: str  # "smoke" (seconds on a laptop CPU, what CI runs) or "full" (the GPU measurements)

    @property
    def cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def full(self) -> bool:
        return self.size == "full"

    def pick(self, smoke, full):
        """The smoke-size value or the full-size one, e.g. ``n = ctx.pick(1024, 8192)``."""
        return full if self.full else smoke

    def describe(self) -> str:
        gpu = torch.cuda.get_device_name(self.device) if self.cuda else "none (CPU only)"
        return (f"torch {torch.__version__} | Python {platform.python_version()} | device {self.device} "
                f"| GPU {gpu} | size {self.size}")


def course_context(device: str = "auto", size: str = "auto") -> Context:
    """Resolve the notebook parameters. ``auto``: CUDA if available; full size on CUDA, smoke on CPU."""
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("DEVICE='cuda' was asked for, but torch.cuda.is_available() is False on this machine")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"DEVICE must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if size == "auto":
        size = "full" if device == "cuda" else "smoke"
    if size not in SIZES:
        raise ValueError(f"SIZE must be 'auto', 'smoke' or 'full', not {size!r}")
    return Context(torch.device(device), size)
