# outcome: rejected | kind: wrong | checks: speed | reason: differs / during timing | device: gpu
# Known wrong: returns the static output buffer itself. Right at the moment it is returned; the next replay
# overwrites it, so an output kept by the caller silently changes.
import torch


def make_graphed_step(model, batch_size):
    static_in = torch.zeros(batch_size, model[0].linear.in_features, device=next(model.parameters()).device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = model(static_in)

    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this step takes a batch of {batch_size}, got {x.shape[0]}")
        static_in.copy_(x)
        graph.replay()
        return static_out

    return step
