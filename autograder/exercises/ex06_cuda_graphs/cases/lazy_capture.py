# outcome: passed | kind: honest | checks: - | reason: legitimate | device: gpu
# Legitimate: captures lazily, on the first call, after warming up on a side stream there.
# What it captures is the reference's branchless forward.
# This design (an early-exit model, the step captured without its host decision): GPU verdict not measured yet.
import torch


def make_graphed_step(model, batch_size):
    state = {}

    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this graph takes a batch of {batch_size}, got {x.shape[0]}")
        if "graph" not in state:
            static_in = x.clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side), torch.no_grad():
                for _ in range(3):
                    branchless_forward(model, static_in)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph), torch.no_grad():
                static_out = branchless_forward(model, static_in)
            state.update(graph=graph, static_in=static_in, static_out=static_out)
        state["static_in"].copy_(x)
        state["graph"].replay()
        return state["static_out"].clone()

    return step


def branchless_forward(model, x):
    h = model.first(x)
    return torch.where(model.typical(h), model.exit(h), model.deep(h))
