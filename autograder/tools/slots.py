"""Concurrent slots on one host: each gets its GPU (where there are enough) and its own share of the CPU cores,
with compile and OpenMP threads capped to that share. `make autograde WORKERS=N` (classroom.fan_out) and
`gpu_check --gpus N` lay a host out the same way."""

from __future__ import annotations

import os
import queue
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor


def gpu_count() -> int:
    """The CUDA devices torch sees (0 without CUDA)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def slots(workers: int, cores: list[int] | None = None, gpus: int | None = None) -> list[dict]:
    """Per concurrent unit: ``{"cores": [...], "env": {...}}``. ``cores``: this process's by default; ``gpus``:
    the CUDA devices torch sees by default. A slot's GPU is named as the caller's CUDA_VISIBLE_DEVICES names it."""
    cores = sorted(os.sched_getaffinity(0)) if cores is None else sorted(cores)
    if gpus is None:
        gpus = gpu_count()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = [d.strip() for d in visible.split(",")] if visible else [str(i) for i in range(gpus)]
    per = max(1, len(cores) // workers)
    out = []
    for i in range(workers):
        # A slot of one core would make the judge and the worker it times share it: then share all cores.
        mine = (cores[i * per:(i + 1) * per] if per >= 2 else cores) or cores
        env = {"TORCHINDUCTOR_COMPILE_THREADS": str(len(mine)), "OMP_NUM_THREADS": str(len(mine))}
        if gpus >= workers:
            env["CUDA_VISIBLE_DEVICES"] = devices[i]
        out.append({"cores": mine, "env": env})
    return out


def run_in_slots(layout: list[dict], items: Iterable, work: Callable) -> list:
    """``work(item, slot)`` for every item, as many at once as ``layout`` has slots, each run holding one slot
    (its GPU and cores) until it returns; the results in the items' order."""
    free: queue.Queue = queue.Queue()
    for slot in layout:
        free.put(slot)

    def run(item):
        slot = free.get()
        try:
            return work(item, slot)
        finally:
            free.put(slot)

    with ThreadPoolExecutor(max_workers=len(layout)) as pool:
        return list(pool.map(run, items))
