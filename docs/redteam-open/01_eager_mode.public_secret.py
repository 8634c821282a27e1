# Cheat (class 4): benchmark() never calls fn; it derives the workload durations from the public self-study secret (the default when no instructor secret is set) and returns them plus a typical round trip. SHOULD FAIL both benchmark checks (expected to pass only because the secret is public: noted, not a finding unless a class runs without a secret).
import hashlib

import torch

from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain

_n = [0]


def _durations(secret="public-self-study-seed"):
    text = f"{secret}|01_eager_mode|durations|0"
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
    u = torch.rand(2, generator=torch.Generator().manual_seed(seed)).tolist()
    return [4 * (0.0015 + 0.0015 * u[0]), 4 * (0.005 + 0.003 * u[1])]


def benchmark(fn, *args):
    _n[0] += 1
    short, long = _durations()
    return (short if _n[0] % 2 == 1 else long) + 0.0006


fast_gelu_bias = torch.compile(gelu_bias_chain)
