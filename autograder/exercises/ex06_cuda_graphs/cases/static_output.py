# outcome: rejected | kind: wrong | checks: speed | reason: differs / during timing | device: gpu
# Known wrong: returns the static output buffer itself. Right at the moment it is returned; the next replay
# overwrites it, so an output kept by the caller silently changes.
# It captures the reference's branchless forward (the model's own forward cannot be captured: its host
# decision); its flaw is its own.
# This design (an early-exit model, the step captured without its host decision): GPU verdict not measured yet.
import torch


def make_graphed_step(model, batch_size):
    static_in = torch.zeros(batch_size, model.exit.normalized_shape[0], device=next(model.parameters()).device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            branchless_forward(model, static_in)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = branchless_forward(model, static_in)

    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this step takes a batch of {batch_size}, got {x.shape[0]}")
        static_in.copy_(x)
        graph.replay()
        return static_out

    return step


def branchless_forward(model, x):
    h = model.first(x)
    return torch.where(model.typical(h), model.exit(h), model.deep(h))
