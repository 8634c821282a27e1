"""Exercise 01's workload: the op-by-op chain the learner makes fast, and the workloads of unknown duration that
their ``benchmark()`` is graded on. Imported by the notebook, by the grader, and by the submission's process."""

from __future__ import annotations

import math
import time

import torch

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
SIZES = {"smoke": (1024, 1024), "full": (8192, 8192)}


def gelu_bias_chain(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU(x + bias), tanh approximation, written op by op as eager code often is.

    x: (..., n) float tensor; bias: (n,) -> (..., n), same dtype and device. In eager mode every
    operator below is its own kernel and writes its own intermediate tensor to memory.
    """
    z = x + bias
    inner = SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)
    return 0.5 * z * (1.0 + torch.tanh(inner))


def matmul_workload(n: int, k: int, first_call_extra_s: float = 0.0, device="cuda"):
    """A GPU workload: ``k`` products of two n x n matrices, launched and not waited for, like any CUDA op.
    How long it takes is known only by measuring it. ``first_call_extra_s`` makes the first call slow, like a
    compile."""
    gen = torch.Generator(device=device).manual_seed(n * 1000 + k)
    a = torch.randn(n, n, device=device, generator=gen)
    b = torch.randn(n, n, device=device, generator=gen) / n
    out = torch.empty_like(a)
    state = {"calls": 0}

    def workload():
        state["calls"] += 1
        if state["calls"] == 1 and first_call_extra_s:
            time.sleep(first_call_extra_s)
        for _ in range(k):
            torch.mm(a, b, out=out)
    return workload


def judged_workload(first_call_extra_s: float = 0.0):
    """A CPU workload that waits on the grader: each call takes as long as the grader (another process)
    decides, so nothing in this process knows the duration."""
    from autograder.core.worker import ask_judge

    state = {"calls": 0}

    def workload():
        state["calls"] += 1
        if state["calls"] == 1 and first_call_extra_s:
            time.sleep(first_call_extra_s)
        ask_judge({"wait": True})
    return workload


def run_benchmark(benchmark, workload) -> float:
    """``benchmark(workload)`` as a number (a one-element tensor is accepted)."""
    result = benchmark(workload)
    if isinstance(result, torch.Tensor) and result.numel() == 1:
        result = result.item()
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise TypeError(f"benchmark(fn) must return the seconds per call as a float, got {type(result).__name__} "
                        f"{result!r}"[:200])
    return float(result)
