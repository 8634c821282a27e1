# outcome: rejected | kind: wrong | checks: fresh_inputs | reason: differs | device: gpu
# Known wrong: the two-graph way without its wait. The decision is copied to pinned host memory without blocking and
# read at the *next* call, so no call waits for its own decision: each batch goes the way the previous batch went
# (the first goes the early exit). Right while the kind of batch stays the same, wrong at every switch; every
# sequence of the grader's inputs holds both switches (workload.atypical_pattern, drawn from the secret), so
# fresh_inputs sees it at its first switch at the latest. GPU verdict not measured yet.
import torch


def make_graphed_step(model, batch_size):
    device = next(model.parameters()).device
    width = model.exit.normalized_shape[0]
    static_in = torch.zeros(batch_size, width, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            h = model.first(static_in)
            model.typical(h), model.exit(h), model.deep(h)
    torch.cuda.current_stream().wait_stream(side)
    first, early, deep = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
    with torch.no_grad():
        with torch.cuda.graph(first):
            static_h = model.first(static_in)
            static_typical = model.typical(static_h)
        with torch.cuda.graph(early, pool=first.pool()):
            early_out = model.exit(static_h)
        with torch.cuda.graph(deep, pool=first.pool()):
            deep_out = model.deep(static_h)
    last = torch.ones((), dtype=torch.bool).pin_memory()  # the previous call's decision, on the host
    copied = torch.cuda.Event()
    state = {"pending": False}

    def step(x):
        if x.shape != static_in.shape:
            raise ValueError(f"this CUDA graph was captured for a batch of {batch_size}, got {tuple(x.shape)}")
        if state["pending"]:
            copied.synchronize()  # the previous call's copy: long done, no wait for this call's decision
        typical = bool(last)
        static_in.copy_(x)
        first.replay()
        (early if typical else deep).replay()
        out = (early_out if typical else deep_out).clone()
        last.copy_(static_typical, non_blocking=True)  # read at the next call
        copied.record()
        state["pending"] = True
        return out

    return step
