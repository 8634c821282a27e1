# outcome: rejected | kind: wrong | checks: - | gpu_checks: speed | reason: too slow | device: gpu
# Known wrong (issue 39: the graded part demands transfer): lesson 5's recipe copied as it is, four equal-width
# buckets of max_len / 4 under reduce-overhead. Right, and nothing recompiles, but on this traffic every short
# request (half are 48 tokens or fewer) is padded to 512 positions: on an H200 1.24x eager in the design probe
# (benchmarks/design/ex05_traffic.py, equal4_ro). NOT yet rejected by the grader: graded twice on an H200
# (2026-11-29) it passed the speed gate at 2.21x and was inconclusive at 1.57x: an eager request is host-bound, and
# that host's CPU made it 1.2-1.6 ms where the probe's host took 1.0 ms; THREAT_MODEL lists it as open.
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
