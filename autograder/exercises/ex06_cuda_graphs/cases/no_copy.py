# outcome: rejected | kind: wrong | checks: fresh_inputs | reason: differs | device: gpu
# Known wrong: replays the graph without copying the new input into the static input buffer, so every call
# computes the output for the capture-time input.
import torch


def make_graphed_step(model, batch_size):
    static_in = torch.randn(batch_size, model[0].linear.in_features, device=next(model.parameters()).device)
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
        graph.replay()
        return static_out.clone()

    return step
