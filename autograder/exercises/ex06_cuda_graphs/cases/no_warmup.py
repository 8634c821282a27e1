# outcome: rejected | kind: wrong | checks: fresh_process | reason: warm up | device: gpu
# Known wrong: captures straight away, without warming up. In a process that already ran the model it works;
# as a new process's first CUDA work, the lazy cuBLAS set-up happens inside the capture and the capture fails.
import torch


def make_graphed_step(model, batch_size):
    static_in = torch.zeros(batch_size, model[0].linear.in_features, device=next(model.parameters()).device)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = model(static_in)

    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this step takes a batch of {batch_size}, got {x.shape[0]}")
        static_in.copy_(x)
        graph.replay()
        return static_out.clone()

    return step
