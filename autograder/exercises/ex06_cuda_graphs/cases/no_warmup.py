# outcome: rejected | kind: wrong | checks: fresh_process | reason: warm up | device: gpu
# Known wrong: captures straight away, without warming up. In a process that already ran the model it works;
# as a new process's first CUDA work, the lazy cuBLAS set-up happens inside the capture and the capture fails.
# It captures the reference's branchless forward (the model's own forward cannot be captured: its host
# decision); its flaw is its own.
# This design (an early-exit model, the step captured without its host decision), H200 2026-11-27: rejected 3/3 on
# fresh_process; graded alone, the worker's own capture is its first CUDA work and fails there (the message says
# "warm up" since; before, "warm-up", which its reason did not match).
import torch


def make_graphed_step(model, batch_size):
    static_in = torch.zeros(batch_size, model.exit.normalized_shape[0], device=next(model.parameters()).device)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = branchless_forward(model, static_in)

    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this step takes a batch of {batch_size}, got {x.shape[0]}")
        static_in.copy_(x)
        graph.replay()
        return static_out.clone()

    return step


def branchless_forward(model, x):
    h = model.first(x)
    return torch.where(model.typical(h), model.exit(h), model.deep(h))
