"""How exercise 02's training-step workload was chosen (run on the GPU host; prints a JSON line per variant).

Each variant is timed against the eager step with the course protocol (autograder.timing.compare).
Usage: python benchmarks/design/ex02_workload.py [--quick]
"""

from __future__ import annotations

import json
import sys
import time

import torch
from autograder.models import BlockConfig, make_model, mse
from autograder.structure import capture_compile_events
from autograder.timing import compare


def eager_step(model, opt):
    def step(x, y):
        loss = mse(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.detach()
    return step


class CheckedHalves(torch.nn.Module):
    """The wrong approach: a NaN check between the halves (data-dependent branch -> graph break)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        n = len(self.model) // 2
        h = self.model[:n](x)
        if not torch.isfinite(h).all():
            raise FloatingPointError("non-finite activations")
        return self.model[n:](h)


def variant(name, model, opt):
    if name == "eager":
        return eager_step(model, opt)
    if name == "compiled_model":
        return eager_step(torch.compile(model), opt)
    if name == "aot_eager":
        return eager_step(torch.compile(model, backend="aot_eager"), opt)
    if name == "graph_break":
        return eager_step(torch.compile(CheckedHalves(model)), opt)
    if name == "regional":
        for block in model:
            block.compile()
        return eager_step(model, opt)
    if name == "compiled_model_and_opt":
        cmodel = torch.compile(model)

        @torch.compile(fullgraph=False)
        def opt_step():
            opt.step()

        def step(x, y):
            loss = mse(cmodel(x), y)
            loss.backward()
            opt_step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()
        return step
    raise ValueError(name)


def run(cfg, batch, names, device="cuda"):
    gen = torch.Generator(device=device).manual_seed(0)
    inputs = [(torch.randn(batch, cfg.seq, cfg.dim, device=device, generator=gen),
               torch.randn(batch, cfg.seq, cfg.dim, device=device, generator=gen)) for _ in range(3)]
    for name in names:
        torch._dynamo.reset()
        base_model = make_model(cfg, device, seed=1)
        base = eager_step(base_model, torch.optim.AdamW(base_model.parameters(), lr=1e-3))
        model = make_model(cfg, device, seed=1)
        cand = variant(name, model, torch.optim.AdamW(model.parameters(), lr=1e-3))
        t0 = time.perf_counter()
        with capture_compile_events() as ev:
            cand(*inputs[0])
            torch.cuda.synchronize() if device == "cuda" else None
        first = time.perf_counter() - t0
        c = compare(base, cand, inputs, device=device, gate=1.5)
        print(json.dumps({"cfg": f"d{cfg.dim} h{cfg.heads} L{cfg.layers} T{cfg.seq} B{batch}", "variant": name,
                          "speedup": round(c.speedup, 3), "rounds": [round(s, 2) for s in c.round_speedups],
                          "eager_ms": round(c.baseline.median_s * 1e3, 3),
                          "cand_ms": round(c.candidate.median_s * 1e3, 3), "first_call_s": round(first, 2),
                          "events": ev.summary()}), flush=True)


if __name__ == "__main__":
    print(torch.__version__, torch.cuda.get_device_name(), flush=True)
    all_names = ["eager", "compiled_model", "aot_eager", "graph_break", "regional", "compiled_model_and_opt"]
    run(BlockConfig(dim=256, heads=4, layers=4, seq=256), 16, all_names)
    if "--quick" not in sys.argv:
        run(BlockConfig(dim=128, heads=4, layers=4, seq=128), 8, ["compiled_model", "graph_break"])
        run(BlockConfig(dim=256, heads=4, layers=4, seq=128), 8, ["compiled_model", "graph_break"])
        run(BlockConfig(dim=384, heads=6, layers=4, seq=256), 16, ["compiled_model", "graph_break"])
