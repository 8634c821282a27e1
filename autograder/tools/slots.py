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


def thread_siblings(cpu: int) -> set[int]:
    """The CPUs that share ``cpu``'s physical core (its hyperthreads, itself included), as Linux lists them; just
    ``cpu`` where the kernel does not say."""
    try:
        with open(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list") as f:
            text = f.read().strip()
    except OSError:
        return {cpu}
    found = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()):
            found |= set(range(int(lo), int(hi or lo) + 1))
    return found | {cpu}


def physical_cores(cores: list[int], siblings: Callable[[int], set[int]] = thread_siblings) -> list[list[int]]:
    """``cores`` grouped by physical core (the hyperthreads of one core together), in order of each group's first
    CPU."""
    groups, seen = [], set()
    for cpu in sorted(cores):
        if cpu not in seen:
            group = sorted(siblings(cpu) & set(cores) | {cpu})
            seen |= set(group)
            groups.append(group)
    return groups


def slots(workers: int, cores: list[int] | None = None, gpus: int | None = None,
          siblings: Callable[[int], set[int]] = thread_siblings) -> list[dict]:
    """Per concurrent unit: ``{"cores": [...], "env": {...}}``. ``cores``: this process's by default; ``gpus``:
    the CUDA devices torch sees by default. A slot's GPU is named as the caller's CUDA_VISIBLE_DEVICES names it.
    Slots get whole physical cores (``siblings``: a CPU's hyperthreads): a slot's judge timing a host-bound
    baseline must not share a core with another slot's compile (on an H200 host two eager runs of one model
    differed by up to 1.9x, judge against worker, while another GPU's chain compiled; docs/THREAT_MODEL.md)."""
    cores = sorted(os.sched_getaffinity(0)) if cores is None else sorted(cores)
    if gpus is None:
        gpus = gpu_count()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    devices = [d.strip() for d in visible.split(",")] if visible else [str(i) for i in range(gpus)]
    groups = physical_cores(cores, siblings)
    per = max(1, len(groups) // workers)
    out = []
    for i in range(workers):
        mine = sorted(cpu for group in groups[i * per:(i + 1) * per] for cpu in group)
        # A slot of one CPU would make the judge and the worker it times share it: then share all cores.
        mine = mine if len(mine) >= 2 and len(groups) >= workers else cores
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
