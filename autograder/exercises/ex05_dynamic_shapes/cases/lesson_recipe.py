# outcome: rejected | kind: wrong | checks: - | gpu_checks: speed | reason: too slow | device: gpu
# Known wrong (issue 39: the graded part demands transfer): lesson 5's recipe copied as it is, four equal-width
# buckets of max_len / 4 under reduce-overhead. Right, and nothing recompiles, but on this traffic every short
# request (half are 48 tokens or fewer) is padded to 2048 positions (max_len 8192): 3.7 ms a request on an H200,
# 0.60x eager in the design probe (benchmarks/design/ex05_traffic.py, equal4_ro), rejected 2/2 graded (0.33x,
# 0.39x; 2026-11-29). At max_len 2048 (padded to 512) it had passed once at 2.21x: an eager request is host-bound
# (1.0-2.2 ms across H200 hosts), and the padded bucket must cost more than the slowest of them.
import torch


def make_server(model, traffic):
    encode = torch.compile(model.encode, mode="reduce-overhead", dynamic=False)
    step = model.max_len // 4
    buckets = [step * i for i in range(1, 5)]
    device = next(model.parameters()).device
    with torch.no_grad():
        for length in buckets:
            x = torch.zeros(1, length, model.dim, device=device)
            mask = torch.zeros(1, length, dtype=torch.bool, device=device)
            for _ in range(3):
                encode(x, mask)

    def handle(x):
        model.requests += 1
        t = x.shape[1]
        length = buckets[(t - 1) // step]
        padded = torch.nn.functional.pad(x, (0, 0, 0, length - t))
        mask = torch.arange(length, device=x.device)[None] >= t
        return encode(padded, mask)[:, :t].clone()

    return handle
