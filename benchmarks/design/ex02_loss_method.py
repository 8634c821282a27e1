"""Design probe for exercise 02 part (b) as redesigned for issue 39 item 2, not a graded check: one process, one GPU,
the exercise's full-size workload (workload.Regressor: make_model d128 h4 L4 T128, batch 8, float32, trained through
its training_loss method, which runs the blocks itself and adds an activation penalty). Each variant is a whole
training step (training loss, backward, AdamW step, zero_grad), timed as the median of 7 blocks of 20 steps, host
clock with synchronize; eager is timed first and last, to show the machine's drift over the run. What is compiled:
nothing; the lesson's recipe (torch.compile(model), the method reached through the wrapper); Module.compile();
the method (the reference); the method and AdamW's step; each block (regional); the whole step; the loss written
again as a compiled function.
Usage: [SIZE=smoke] PYTHONPATH=. python benchmarks/design/ex02_loss_method.py OUT.jsonl"""

import json
import os
import statistics
import sys
import time

import torch
import torch._dynamo
from torch._dynamo.utils import counters

from autograder.exercises.ex02_compile_pipeline.workload import CONFIGS, build_model, make_optimizer, train_step

SIZE = os.environ.get("SIZE", "full")  # SIZE=smoke: a quick run on a CPU
CFG, BATCH = CONFIGS[SIZE]
DEV = torch.device("cuda" if torch.cuda.is_available() else "cpu")
OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/ex02_loss_method.jsonl"


def sync():
    if DEV.type == "cuda":
        torch.cuda.synchronize()


def timed(step, x, y, blocks=7, per_block=20, warm=5):
    t0 = time.perf_counter()
    for _ in range(warm):
        step(x, y)
    sync()
    warm_s = time.perf_counter() - t0
    times = []
    for _ in range(blocks):
        sync()
        t = time.perf_counter()
        for _ in range(per_block):
            step(x, y)
        sync()
        times.append((time.perf_counter() - t) / per_block * 1e3)
    return statistics.median(times), min(times), max(times), warm_s


def steps(model, opt):
    """name -> a step(x, y) built on (model, opt)."""
    def with_loss(loss_fn, opt_step=opt.step):
        def step(x, y):
            loss = loss_fn(x, y)
            loss.backward()
            opt_step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()
        return step

    def own_loss():
        @torch.compile
        def training_loss(x, y):
            h, activation = x, 0.0
            for block in model.blocks:
                h = block(h)
                activation = activation + h.pow(2).mean()
            return (h - y).pow(2).mean() + model.penalty * activation
        return with_loss(training_loss)

    def regional():
        for block in model.blocks:
            block.compile()
        return with_loss(model.training_loss)

    def module_compile():
        model.compile()
        return with_loss(model.training_loss)

    return {
        "eager": lambda: with_loss(model.training_loss),
        "wrapper_method": lambda: with_loss(torch.compile(model).training_loss),
        "module_compile": module_compile,
        "compiled_loss": lambda: with_loss(torch.compile(model.training_loss)),
        "compiled_loss_and_adamw": lambda: with_loss(torch.compile(model.training_loss), torch.compile(opt.step)),
        "regional": regional,
        "whole_step": lambda: torch.compile(lambda x, y: train_step(model, opt, x, y)),
        "own_loss_function": own_loss,
    }


def variant(name):
    torch._dynamo.reset()
    counters.clear()
    model = build_model(SIZE, 0, DEV)
    opt = make_optimizer(model)
    x, y = (torch.randn(BATCH, CFG.seq, CFG.dim, device=DEV) for _ in range(2))
    row = {"variant": name}
    try:
        ms, lo, hi, warm_s = timed(steps(model, opt)[name](), x, y)
        row.update(ms=round(ms, 4), lo=round(lo, 4), hi=round(hi, 4), warm_s=round(warm_s, 2),
                   graphs=counters["stats"]["unique_graphs"], breaks=sum(counters["graph_break"].values()))
    except Exception as e:  # noqa: BLE001
        row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
    print(json.dumps(row), flush=True)
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    return row


if __name__ == "__main__":
    torch.backends.cuda.matmul.allow_tf32 = False
    with open(OUT, "a") as f:
        f.write(json.dumps({"device": torch.cuda.get_device_name() if DEV.type == "cuda" else "cpu",
                            "torch": torch.__version__}) + "\n")
    names = list(steps(torch.nn.Linear(1, 1), torch.optim.SGD([torch.zeros(1, requires_grad=True)])))
    for name in names + ["eager"]:
        variant(name)
