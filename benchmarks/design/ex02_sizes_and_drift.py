"""Exercise 02 on a GPU, in one process (no grader boundary), as run on the H200 on 2026-11-23:

    python benchmarks/design/ex02_sizes_and_drift.py drift   # -> ex02-replay-drift-2026-11-23.json
    python benchmarks/design/ex02_sizes_and_drift.py sizes   # -> ex02-sizes-2026-11-23.json

drift: how far the grader's eager replay drifts from the compiled step within blocks of 20 steps, the replay's
weights re-synced from the compiled model after each block (its AdamW state is its own), as the timed check does.
sizes: the eager step against the reference's (compiled model + compiled optimizer step) for a few sizes.
"""

import json
import statistics
import sys
import time

import torch

from autograder.course.models import BlockConfig, make_model, mse
from autograder.exercises.ex02_compile_pipeline.workload import (
    copy_params,
    load_params,
    make_optimizer,
    param_count,
    train_step,
)

DEVICE = "cuda"


def reference_step(model, optimizer):
    compiled = torch.compile(model)

    @torch.compile
    def optimizer_step():
        optimizer.step()

    def step(x, y):
        loss = mse(compiled(x), y)
        loss.backward()
        optimizer_step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()
    return step


def batch(cfg, size, gen):
    return [torch.randn(size, cfg.seq, cfg.dim, device=DEVICE, generator=gen) for _ in range(2)]


def drift(cfg, size, blocks=12, per_block=20) -> dict:
    fast, slow = make_model(cfg, DEVICE, seed=1), make_model(cfg, DEVICE, seed=1)
    step, slow_opt = reference_step(fast, make_optimizer(fast)), make_optimizer(slow)
    gen = torch.Generator(device=DEVICE).manual_seed(0)
    flat_fast = torch.empty(param_count(fast), device=DEVICE)
    flat_slow = torch.empty_like(flat_fast)
    by_step, weights = {}, []
    for _ in range(blocks):
        for j in range(per_block):
            x, y = batch(cfg, size, gen)
            got, want = step(x, y), train_step(slow, slow_opt, x.clone(), y.clone())
            by_step.setdefault(j, []).append(float((got - want).abs() / want.abs()))
        copy_params(fast, flat_fast)
        copy_params(slow, flat_slow)
        weights.append(float((flat_fast - flat_slow).abs().max()))
        load_params(slow, flat_fast)
    return {"loss_rel_max_by_step": [max(by_step[j]) for j in sorted(by_step)],
            "loss_rel_max": max(max(v) for v in by_step.values()), "weights_absmax_per_block": weights}


def seconds_per_call(fn, data, repeats=5) -> float:
    for args in data[:5]:
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for args in data:
            fn(*args)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / len(data))
    return statistics.median(times)


def speed(cfg, size) -> dict:
    data = [batch(cfg, size, torch.Generator(device=DEVICE).manual_seed(i)) for i in range(20)]
    eager_model = make_model(cfg, DEVICE, seed=1)
    eager_opt = make_optimizer(eager_model)
    eager = seconds_per_call(lambda x, y: train_step(eager_model, eager_opt, x, y), data)
    model = make_model(cfg, DEVICE, seed=1)
    compiled = seconds_per_call(reference_step(model, make_optimizer(model)), data)
    return {"eager_ms": eager * 1e3, "compiled_ms": compiled * 1e3, "speedup": eager / compiled}


if __name__ == "__main__":
    if sys.argv[1] == "drift":
        out = {"drift_full": drift(BlockConfig(dim=256, heads=4, layers=4, seq=256), 16)}
    else:
        out = {name: speed(cfg, size) for name, cfg, size in [
            ("d256T256B16", BlockConfig(dim=256, heads=4, layers=4, seq=256), 16),
            ("d128T128B8", BlockConfig(dim=128, heads=4, layers=4, seq=128), 8),
            ("d192T128B16", BlockConfig(dim=192, heads=4, layers=4, seq=128), 16),
            ("d256T128B8", BlockConfig(dim=256, heads=4, layers=4, seq=128), 8)]}
    print(json.dumps(out, indent=1))
