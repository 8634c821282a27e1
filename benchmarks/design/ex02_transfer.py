"""Design probe for a transfer form of exercise 02 part (b) (issue 39 item 2), not a graded check: one process, one GPU,
the exercise's full-size workload (make_model d128 h4 L4 T128, batch 8, float32). Each variant is a whole training
step (forward, mse, backward, optimizer step, zero_grad), timed as the median of blocks of steps, host clock with
synchronize. Candidates: (a) the lesson's recipe against AdamW (today's exercise); (b) a LAMB optimizer written as
research code often is, its trust ratio a Python branch on two norms (a sync and a data-dependent branch per tensor):
the model compiled alone, the optimizer step compiled as written (graph breaks), a branch-free version compiled;
(c) a step that calls a method of the model, where torch.compile(model) compiles nothing.
Usage: PYTHONPATH=. python benchmarks/design/ex02_transfer.py OUT.jsonl
(the H200 run: ex02-transfer-h200-2026-11-29.jsonl)"""

import json
import statistics
import sys
import time

import torch
import torch._dynamo
from torch._dynamo.utils import counters

from autograder.course.models import BlockConfig, make_model, mse

CFG, BATCH = BlockConfig(dim=128, heads=4, layers=4, seq=128), 8
DEV = torch.device("cuda" if torch.cuda.is_available() else "cpu")
OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/ex02_probe.jsonl"


class Lamb(torch.optim.Optimizer):
    """LAMB (You et al. 2019) as research code often writes it: per tensor, the trust ratio ||w|| / ||update|| taken
    with a Python branch on the two norms."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["step"], st["m"], st["v"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                st["step"] += 1
                m, v = st["m"], st["v"]
                m.mul_(b1).add_(p.grad, alpha=1 - b1)
                v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                update = (m / (1 - b1 ** st["step"])) / ((v / (1 - b2 ** st["step"])).sqrt() + group["eps"])
                update = update + group["weight_decay"] * p
                w_norm, u_norm = p.norm(), update.norm()
                trust = (w_norm / u_norm).item() if w_norm > 0 and u_norm > 0 else 1.0
                p.add_(update, alpha=-group["lr"] * trust)


def lamb_branch_free(opt: Lamb):
    """The same update with torch.where in place of the branch, over the optimizer's own state."""
    @torch.no_grad()
    def step():
        for group in opt.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = opt.state[p]
                if not st:
                    st["step"], st["m"], st["v"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                st["step"] += 1
                m, v = st["m"], st["v"]
                m.mul_(b1).add_(p.grad, alpha=1 - b1)
                v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                update = (m / (1 - b1 ** st["step"])) / ((v / (1 - b2 ** st["step"])).sqrt() + group["eps"])
                update = update + group["weight_decay"] * p
                w_norm, u_norm = p.norm(), update.norm()
                trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
                p.sub_(update * (group["lr"] * trust))
    return step


class WithLoss(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)

    def training_loss(self, x, y):
        return mse(self(x), y)


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


def make_step(model_fn, model, opt_step, opt):
    def step(x, y):
        loss = model_fn(x, y)
        loss.backward()
        opt_step()
        opt.zero_grad(set_to_none=True)
        return loss.detach()
    return step


def variant(name, opt_kind, compile_model, opt_mode):
    torch._dynamo.reset()
    counters.clear()
    model = make_model(CFG, DEV, seed=0)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3) if opt_kind == "adamw" else Lamb(model.parameters())
    if compile_model == "method_of_compiled_wrapper":
        wrapped = torch.compile(WithLoss(model))
        model_fn = wrapped.training_loss  # the original's method: nothing compiled
    else:
        m = torch.compile(model) if compile_model else model
        model_fn = lambda x, y: mse(m(x), y)  # noqa: E731
    if opt_mode == "eager":
        opt_step = opt.step
    elif opt_mode == "compiled":
        opt_step = torch.compile(opt.step)
    else:  # branch-free, compiled
        opt_step = torch.compile(lamb_branch_free(opt))
    x, y = (torch.randn(BATCH, CFG.seq, CFG.dim, device=DEV) for _ in range(2))
    row = {"variant": name, "opt": opt_kind, "compile_model": compile_model, "opt_mode": opt_mode}
    try:
        ms, lo, hi, warm_s = timed(make_step(model_fn, model, opt_step, opt), x, y)
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
    for args in [("eager_adamw", "adamw", False, "eager"), ("model_adamw", "adamw", True, "eager"),
                 ("model_and_opt_adamw", "adamw", True, "compiled"),
                 ("method_of_compiled_wrapper", "adamw", "method_of_compiled_wrapper", "eager"),
                 ("eager_lamb", "lamb", False, "eager"), ("model_lamb_eager", "lamb", True, "eager"),
                 ("model_lamb_branch_free", "lamb", True, "branch_free"),
                 ("model_lamb_compiled_as_written", "lamb", True, "compiled")]:
        variant(*args)
