"""What one call launches (CUDA kernels on a GPU, top-level operators on a CPU, through torch.profiler), how
busy it keeps the GPU, and the GPU's copy bandwidth: the ceilings a result card measures against."""

from __future__ import annotations

import contextlib
import re
import warnings
from collections import Counter
from dataclasses import dataclass

import torch
from torch.profiler import ProfilerActivity, profile

from autograder.core.timing import synchronize


@dataclass
class CallProfile:
    kernels: Counter  # kernel (GPU) or top-level operator (CPU) name -> launches in one call
    device_time_s: float  # GPU: summed kernel time; CPU: summed top-level operator time
    unit: str  # what `kernels` counts, in words

    @property
    def count(self) -> int:
        return sum(self.kernels.values())

    def short_names(self) -> Counter:
        """Kernel names without C++ template noise: 'MulFunctor', 'triton_poi_fused_add_mul_tanh_0', ..."""
        short = Counter()
        for name, n in self.kernels.items():
            functors = [f for f in re.findall(r"\w*Functor\w*", name)
                        if not f.startswith(("AUnary", "BUnary", "Binary"))]
            match = re.search(r"(triton_\w+|aten::\w+|Torch-Compiled Region[^,]*)", name)
            short[functors[-1] if functors else match.group(1) if match else name[:60]] += n
        return short


@contextlib.contextmanager
def _native_stderr_silenced():
    """File descriptor 2 pointed at /dev/null while the profiler runs: Kineto writes "USDT: ... profiler_start" and
    "profiler_stop" from C++ straight to it, which a notebook shows as red stderr boxes over every profiled cell."""
    import os
    import sys

    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no descriptor 2 (an embedded interpreter): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def profile_call(fn, *args, device=None, warmup: int = 3) -> CallProfile:
    """Profile one steady-state call of ``fn(*args)`` (after ``warmup`` calls, so a compile is not in it)."""
    if device is None:
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))
    cuda = torch.device(device).type == "cuda"
    for _ in range(warmup):
        fn(*args)
    synchronize(device)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with warnings.catch_warnings(), _native_stderr_silenced():  # "Profiler clears events at the end of each
        warnings.simplefilter("ignore")  # cycle": expected, one cycle; Kineto's "profiler_start/stop" lines too
        with profile(activities=activities) as prof:
            fn(*args)
            synchronize(device)
    if cuda:
        events = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        total = sum(e.device_time for e in events) / 1e6
        return CallProfile(Counter(e.name for e in events), total, "CUDA kernels")
    top = [e for e in prof.events() if e.cpu_parent is None and not e.name.startswith("TorchDynamo")]
    total = sum(e.cpu_time_total for e in top) / 1e6
    return CallProfile(Counter(e.name for e in top), total, "top-level operators (CPU)")


def gpu_busy_fraction(fn, args, device, wall_s: float) -> float | None:
    """Kernel time of one profiled call over the measured wall time per call: how launch-bound it is.

    Near 1: the GPU is the bottleneck. Far below 1: it waits for Python and kernel launches (launch-bound),
    which CUDA graphs and reduce-overhead remove. None when the profiler cannot tell.
    """
    try:
        kernel_s = profile_call(fn, *args, device=device, warmup=0).device_time_s
    except Exception:  # the profiler is an aid for the result card, never a reason to fail a grading
        return None
    return min(kernel_s / wall_s, 1.0) if wall_s > 0 and kernel_s > 0 else None


def kernel_seconds(fn, *args) -> float:
    """Summed kernel (GPU) or operator (CPU) time of one call: what the grader asks a worker for (self-reported)."""
    try:
        return float(profile_call(fn, *args, warmup=0).device_time_s)
    except Exception:
        return 0.0


_copy_bandwidth: dict = {}


def copy_bandwidth(device: torch.device, again: bool = False) -> float:
    """Bytes/s of a large device-to-device copy (read + write): the memory ceiling a fused kernel can reach.
    Measured once per process; ``again`` measures anew and keeps the higher figure (one measured while another
    program shared the GPU is too low)."""
    if again or device not in _copy_bandwidth:
        before = _copy_bandwidth.get(device, 0.0)
        src = torch.empty(2**30, dtype=torch.uint8, device=device)
        dst = torch.empty_like(src)
        dst.copy_(src)
        best = 0.0
        for _ in range(5):  # the best of five: a ceiling, not a typical value
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(5):
                dst.copy_(src)
            end.record()
            synchronize(device)
            best = max(best, 2 * src.numel() * 5 / (start.elapsed_time(end) / 1e3))
        _copy_bandwidth[device] = max(best, before)
        del src, dst
    return _copy_bandwidth[device]
