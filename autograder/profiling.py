"""What one call launches: CUDA kernels on a GPU, top-level operators on a CPU (torch.profiler)."""

from __future__ import annotations

import re
import warnings
from collections import Counter
from dataclasses import dataclass

import torch
from torch.profiler import ProfilerActivity, profile

from autograder.timing import synchronize


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


def profile_call(fn, *args, device=None, warmup: int = 3) -> CallProfile:
    """Profile one steady-state call of ``fn(*args)`` (after ``warmup`` calls, so a compile is not in it)."""
    if device is None:
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))
    cuda = torch.device(device).type == "cuda"
    for _ in range(warmup):
        fn(*args)
    synchronize(device)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with warnings.catch_warnings():  # "Profiler clears events at the end of each cycle": expected, one cycle
        warnings.simplefilter("ignore")
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
