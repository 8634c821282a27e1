"""Workload models shared by lessons and exercises: a small transformer written op by op, as research code is.

Every normalisation, the rotary embedding, the soft-capping, the causal softmax and the SwiGLU gate are
hand-written from pointwise and reduction ops, so eager mode launches many small kernels and writes many
intermediates; that is the share of the work ``torch.compile`` fuses. The matmuls are the same either way.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class BlockConfig:
    dim: int = 256
    heads: int = 4
    layers: int = 4
    seq: int = 256  # the longest sequence the rotary tables and the causal mask cover
    mlp_ratio: int = 4
    softcap: float = 30.0  # tanh soft-capping of the attention logits (as in Gemma 2)

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x: (..., d), weight: (d,) -> (..., d): x / rms(x) * weight, over the last dimension."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotary position embedding. x: (B, H, T, hd); cos, sin: (T, hd/2) -> (B, H, T, hd)."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


def causal_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim with future positions masked. scores: (B, H, T, T); mask: (T, T) bool."""
    scores = scores.masked_fill(mask, float("-inf"))
    scores = scores - scores.amax(-1, keepdim=True)
    weights = scores.exp()
    return weights / weights.sum(-1, keepdim=True)


def mse(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error, a 0-dim tensor."""
    return (pred - target).pow(2).mean()


class Block(nn.Module):
    """Pre-norm transformer block: RMSNorm -> causal self-attention (QK-norm, RoPE, soft-capped logits) ->
    residual -> RMSNorm -> SwiGLU MLP -> residual. x: (B, T, dim) -> (B, T, dim)."""

    def __init__(self, cfg: BlockConfig):
        super().__init__()
        d, hd, hidden = cfg.dim, cfg.head_dim, cfg.mlp_ratio * cfg.dim
        self.cfg = cfg
        self.attn_norm = nn.Parameter(torch.ones(d))
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.q_norm = nn.Parameter(torch.ones(hd))
        self.k_norm = nn.Parameter(torch.ones(hd))
        self.proj = nn.Linear(d, d, bias=False)
        self.mlp_norm = nn.Parameter(torch.ones(d))
        self.gate_up = nn.Linear(d, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, d, bias=False)
        freqs = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        angles = torch.outer(torch.arange(cfg.seq).float(), freqs)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        future = torch.ones(cfg.seq, cfg.seq, dtype=torch.bool).triu(1)
        self.register_buffer("mask", future, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cfg = self.cfg
        B, T, D = x.shape
        h = rms_norm(x, self.attn_norm)
        q, k, v = self.qkv(h).view(B, T, 3, cfg.heads, cfg.head_dim).permute(2, 0, 3, 1, 4)
        cos, sin = self.cos[:T], self.sin[:T]
        q = rotary(rms_norm(q, self.q_norm), cos, sin)
        k = rotary(rms_norm(k, self.k_norm), cos, sin)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(cfg.head_dim)
        scores = cfg.softcap * torch.tanh(scores / cfg.softcap)
        attn = causal_softmax(scores, self.mask[:T, :T]) @ v
        x = x + self.proj(attn.transpose(1, 2).reshape(B, T, D))
        gate, up = self.gate_up(rms_norm(x, self.mlp_norm)).chunk(2, dim=-1)
        return x + self.down(gate * torch.sigmoid(gate) * up)


def make_model(cfg: BlockConfig, device: torch.device | str = "cpu", seed: int = 0) -> nn.Sequential:
    """``cfg.layers`` blocks with weights drawn from ``seed`` (the same seed gives the same weights)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = nn.Sequential(*[Block(cfg) for _ in range(cfg.layers)])
    return model.to(device)


class ResidualMLPBlock(nn.Module):
    """LayerNorm -> Linear -> GELU -> residual. x: (..., width) -> (..., width)."""

    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.linear = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.nn.functional.gelu(self.linear(self.norm(x)))


def make_mlp(width: int = 512, depth: int = 16, device: torch.device | str = "cpu", seed: int = 0) -> nn.Sequential:
    """``depth`` residual blocks of width ``width`` and a final LayerNorm, in eval mode: x (B, width) -> (B, width).

    At a small batch each layer's kernels take microseconds, so eager time is mostly Python and kernel launches:
    a launch-bound network (lesson and exercise 03). At a large batch and width the matmuls dominate.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = nn.Sequential(*[ResidualMLPBlock(width) for _ in range(depth)], nn.LayerNorm(width))
    return model.to(device).eval()


# Exercise 04 (graph breaks): a residual block whose forward breaks Dynamo's graph in three different ways.
_BLOCK_LOG = logging.getLogger("course.ex04")
_GELU_C = math.sqrt(2.0 / math.pi)


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """x: (..., d) normalised over its last dimension; weight, bias: (d,)."""
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + eps) * weight + bias


def gelu_tanh(h: torch.Tensor) -> torch.Tensor:
    return 0.5 * h * (1.0 + torch.tanh(_GELU_C * (h + 0.044715 * h * h * h)))


def silu(h: torch.Tensor) -> torch.Tensor:
    return h * torch.sigmoid(h)


class BrokenBlock(nn.Module):
    """x: (B, T, d) -> (B, T, d). A pre-norm residual block that adds a standardised update: GELU where the
    input's mean is positive, SiLU where it is not. The update has mean zero, so every block of a stack takes
    the branch that the input's mean picks.

    Its forward breaks the graph three ways: a Python ``if`` on a tensor, a Python float read with
    ``.item()``, and a logging call.
    """

    def __init__(self, d: int):
        super().__init__()
        self.norm_weight = nn.Parameter(torch.ones(d))
        self.norm_bias = nn.Parameter(torch.zeros(d))
        self.linear = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.linear(layer_norm(x, self.norm_weight, self.norm_bias))
        if x.mean() > 0:  # 1. a data-dependent Python branch
            h = gelu_tanh(h)
        else:
            h = silu(h)
        spread = max(h.std().item(), 1e-3)  # 2. a Python float read from a tensor
        _BLOCK_LOG.info("block update spread %.4f", spread)  # 3. a logging call
        return x + (h - h.mean()) / spread


def make_block_stack(block_cls: type[nn.Module], d: int = 512, depth: int = 4,
                     device: torch.device | str = "cpu", seed: int = 0) -> nn.Sequential:
    """``depth`` blocks of ``block_cls(d)`` in eval mode, with the weights a BrokenBlock stack of this seed
    has: any block class with BrokenBlock's parameters gets the same values."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        weights = nn.Sequential(*[BrokenBlock(d) for _ in range(depth)]).state_dict()
    model = nn.Sequential(*[block_cls(d) for _ in range(depth)])
    model.load_state_dict(weights)
    return model.to(device).eval()


# Exercise 05 (dynamic shapes): an encoder that serves one request at a time, of any length up to max_len.
def masked_softmax(scores: torch.Tensor, key_padding_mask: torch.Tensor | None) -> torch.Tensor:
    """Softmax over the keys (last dim). scores: (B, H, T, T); key_padding_mask: (B, T) bool, True where a
    key is padding (it then gets weight 0), or None."""
    if key_padding_mask is not None:
        scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    scores = scores - scores.amax(-1, keepdim=True)
    weights = scores.exp()
    return weights / weights.sum(-1, keepdim=True)


class EncoderBlock(nn.Module):
    """Pre-norm bidirectional encoder block: LayerNorm -> self-attention over every position (no causal mask:
    each output depends on every key, so padding that is not masked changes the result) -> residual ->
    LayerNorm -> tanh-GELU MLP -> residual. x: (B, T, d), key_padding_mask: (B, T) bool or None -> (B, T, d)."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1_w, self.norm1_b = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2_w, self.norm2_b = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        B, T, D = x.shape
        hd = D // self.heads
        q, k, v = self.qkv(layer_norm(x, self.norm1_w, self.norm1_b)).view(B, T, 3, self.heads, hd).permute(
            2, 0, 3, 1, 4)
        weights = masked_softmax((q @ k.transpose(-2, -1)) / math.sqrt(hd), key_padding_mask)
        x = x + self.proj((weights @ v).transpose(1, 2).reshape(B, T, D))
        return x + self.down(gelu_tanh(self.up(layer_norm(x, self.norm2_w, self.norm2_b))))


class ServingEncoder(nn.Module):
    """A stack of EncoderBlocks serving requests. x: (B, T, d) with 1 <= T <= max_len -> (B, T, d).

    ``forward`` counts requests in ``self.requests``, a Python int the monitoring reads: per-call Python state.
    Dynamo guards on an int attribute's value, so compiling ``forward`` as it is recompiles on every call.
    ``encode(x, key_padding_mask)`` is the computation alone.
    """

    def __init__(self, d: int = 256, heads: int = 4, layers: int = 2, max_len: int = 256):
        super().__init__()
        self.dim, self.max_len = d, max_len
        self.blocks = nn.ModuleList(EncoderBlock(d, heads) for _ in range(layers))
        self.requests = 0

    def forward(self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        self.requests += 1
        return self.encode(x, key_padding_mask)

    def encode(self, x: torch.Tensor, key_padding_mask: torch.Tensor | None = None) -> torch.Tensor:
        for block in self.blocks:
            x = block(x, key_padding_mask)
        return x


def make_encoder(d: int = 256, heads: int = 4, layers: int = 2, max_len: int = 256,
                 device: torch.device | str = "cpu", seed: int = 0) -> ServingEncoder:
    """A ServingEncoder in eval mode with weights drawn from ``seed``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = ServingEncoder(d, heads, layers, max_len)
    return model.to(device).eval()
