# outcome: passed | kind: honest | checks: - | reason: legitimate | device: gpu
# Legitimate: the decision stays on the host, outside any capture. One graph up to the decision (the first stage and
# the 0-dim bool), one host read per call (a wait, as eager's), then a graph for the way it chose; the three graphs
# share one memory pool (lesson 6, section 2): the later captures reuse what earlier ones freed, never their outputs,
# which stay referenced here, and only the chosen way's graph replays after `first`, so no replay writes where another
# graph's live output is. Each call runs only its way's kernels (fewer than the reference's on a typical batch) and
# pays the read. Not measured on a GPU yet (benchmarks/design/ex06_transfer.py times it beside the reference).
import torch


def make_graphed_step(model, batch_size):
    device = next(model.parameters()).device
    width = model.exit.normalized_shape[0]
    static_in = torch.zeros(batch_size, width, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):  # both ways warmed up: the capture must not be their first run
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

    def step(x):
        if x.shape != static_in.shape:
            raise ValueError(f"these CUDA graphs were captured for a batch of {batch_size}, got {tuple(x.shape)}")
        static_in.copy_(x)
        first.replay()
        if static_typical.item():  # the one host read, outside any capture
            early.replay()
            return early_out.clone()
        deep.replay()
        return deep_out.clone()

    return step
