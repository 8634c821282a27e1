"""Design study for exercise 04 (graph breaks): a model whose forward breaks the graph in three different ways,
its fixed version, and the known-wrong "fixes"; prints graphs/breaks per variant and (on a GPU) the speedup
over the original eager model with the course protocol. Run on the GPU host:

    python benchmarks/design/ex04_workload.py [--quick]

The breaks, one of each kind per block: a data-dependent Python branch (`if h.mean() > 0:`), a Python scalar
read from a tensor (`.item()`), and a logging call. The fixed block expresses the branch with `torch.where`,
keeps the scalar a tensor, and logs only when not compiling.
"""

from __future__ import annotations

import json
import logging
import math
import sys

import torch
from autograder.structure import capture_compile_events
from autograder.timing import compare
from torch import nn

log = logging.getLogger("course.ex04")
C = math.sqrt(2.0 / math.pi)


def layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + eps) * w + b


def gelu_tanh(h):
    return 0.5 * h * (1.0 + torch.tanh(C * (h + 0.044715 * h * h * h)))


def silu(h):
    return h * torch.sigmoid(h)


class BrokenBlock(nn.Module):
    """x: (B, T, d) -> (B, T, d). Three graph breaks per call, each of a different kind."""

    def __init__(self, d):
        super().__init__()
        self.w, self.b = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))
        self.linear = nn.Linear(d, d)

    def forward(self, x):
        h = self.linear(layer_norm(x, self.w, self.b))
        if h.mean() > 0:  # data-dependent branch
            h = gelu_tanh(h)
        else:
            h = silu(h)
        spread = max(h.std().item(), 1e-3)  # a Python float from a tensor
        log.debug("block output spread %.4f", spread)  # logging
        return x + h / spread


class FixedBlock(BrokenBlock):
    def forward(self, x):
        h = self.linear(layer_norm(x, self.w, self.b))
        h = torch.where(h.mean() > 0, gelu_tanh(h), silu(h))
        spread = h.std().clamp_min(1e-3)
        if not torch.compiler.is_compiling():
            log.debug("block output spread %.4f", float(spread))
        return x + h / spread


class OneBranchBlock(BrokenBlock):
    """Wrong: drops the branch (always GELU) instead of expressing it with tensors."""

    def forward(self, x):
        h = gelu_tanh(self.linear(layer_norm(x, self.w, self.b)))
        return x + h / h.std().clamp_min(1e-3)


class HiddenBranchBlock(BrokenBlock):
    """Wrong: hides the branch behind is_compiling(): the compiled path computes something else."""

    def forward(self, x):
        h = self.linear(layer_norm(x, self.w, self.b))
        if torch.compiler.is_compiling():
            h = gelu_tanh(h)
        elif h.mean() > 0:
            h = gelu_tanh(h)
        else:
            h = silu(h)
        return x + h / h.std().clamp_min(1e-3)


class DisabledBlock(BrokenBlock):
    """Wrong: torch._dynamo.disable on the awkward part."""

    @torch._dynamo.disable
    def _awkward(self, h):
        h = gelu_tanh(h) if h.mean() > 0 else silu(h)
        return h / max(h.std().item(), 1e-3)

    def forward(self, x):
        return x + self._awkward(self.linear(layer_norm(x, self.w, self.b)))


def model(block_cls, d, depth, device, seed=0):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        m = nn.Sequential(*[block_cls(d) for _ in range(depth)])
    return m.to(device).eval()


VARIANTS = {"original_compiled": BrokenBlock, "fixed": FixedBlock, "one_branch": OneBranchBlock,
            "hidden_branch": HiddenBranchBlock, "disabled": DisabledBlock}


def run(d, depth, batch, seq, device, names):
    gen = torch.Generator(device=device).manual_seed(0)
    inputs = [(torch.randn(batch, seq, d, device=device, generator=gen),) for _ in range(3)]
    eager = model(BrokenBlock, d, depth, device)
    for name in names:
        torch._dynamo.reset()
        cand = torch.compile(model(VARIANTS[name], d, depth, device))
        with torch.no_grad(), capture_compile_events() as events:
            out = cand(inputs[0][0])
        with torch.no_grad():
            err = (out - eager(inputs[0][0])).abs().max().item()
            row = {"cfg": f"d{d} L{depth} B{batch} T{seq}", "variant": name, "events": events.summary(),
                   "max_abs_err_vs_original": err}
            if device == "cuda":
                c = compare(eager, cand, inputs, device=device, gate=1.5)
                row.update(speedup=round(c.speedup, 3), rounds=[round(s, 2) for s in c.round_speedups],
                           eager_us=round(c.baseline.median_s * 1e6, 1), cand_us=round(c.candidate.median_s * 1e6, 1))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print(torch.__version__, torch.cuda.get_device_name() if device == "cuda" else "cpu", flush=True)
    if device == "cpu" or "--quick" in sys.argv:
        run(64, 2, 2, 16, device, list(VARIANTS))
    else:
        run(512, 4, 16, 256, device, list(VARIANTS))
        run(256, 8, 8, 256, device, ["original_compiled", "fixed"])
        run(1024, 4, 8, 512, device, ["original_compiled", "fixed"])
