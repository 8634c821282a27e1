# outcome: rejected | kind: cheat | checks: few_graphs | reason: compiled while serving / was stopped after | device: any | class: 7
# A red team (2026-11-27): forks CPU burners at import, which ran while the judge timed its own eager request (the
# yardstick few_graphs' limit is scaled by) and inflated it; the server sleeps to a steady 0.15 s and compiles each
# bucket lazily. The judge now times its yardstick with the submission's processes stopped.
import os
import time

import torch

S = 0.15
BURN_S = 4.0
BURNERS = 4


def _burn():
    end = time.monotonic() + BURN_S
    for _ in range(BURNERS):
        if os.fork() == 0:
            try:
                x = 0
                while time.monotonic() < end:
                    x += 1
            finally:
                os._exit(0)


_burn()


def make_server(model, traffic):
    def run(x, mask):
        a = model.encode(x, mask)
        b = model.encode(x * 1.0, mask)
        c = model.encode(x + 0.0, mask)
        return (a + b + c) / 3.0  # three traces of the same math: a bigger graph, a longer (cold) compile

    encode = torch.compile(run, dynamic=False, backend="aot_eager")
    buckets = [model.max_len * i // 4 for i in range(1, 5)]
    ready = set()

    def handle(x):
        start = time.perf_counter()
        model.requests += 1
        t = x.shape[1]
        length = next(b for b in buckets if b >= t)
        mask = torch.arange(length, device=x.device)[None] >= t
        with torch.compiler.set_stance("default"):
            out = encode(torch.nn.functional.pad(x, (0, 0, 0, length - t)), mask)[:, :t].clone()
        if length in ready:
            left = S - (time.perf_counter() - start)
            if left > 0:
                time.sleep(left)
        ready.add(length)
        return out

    return handle
