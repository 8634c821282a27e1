# outcome: rejected | kind: wrong | checks: fresh_inputs | reason: differs | device: gpu
# Known wrong: the capture error "fixed" by taking the decision out of the step altogether: the deep way captured
# for every batch (model.deep(model.first(x)), the safe-looking one). It captures, replays and is fast, and it is
# right for atypical batches only: a typical batch's answer is model.exit(h), not model.deep(h). Every sequence of the
# grader's inputs holds both kinds (workload.atypical_pattern), so fresh_inputs sees it on its first typical batch.
# Verified on a CPU: the grader's inputs go both ways and the two ways' outputs differ (tests/test_exercises.py);
# the GPU verdict is not measured yet.
import torch


def make_graphed_step(model, batch_size):
    device = next(model.parameters()).device
    width = model.exit.normalized_shape[0]
    static_in = torch.zeros(batch_size, width, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            model.deep(model.first(static_in))
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.no_grad():
        static_out = model.deep(model.first(static_in))

    def step(x):
        if x.shape != static_in.shape:
            raise ValueError(f"this CUDA graph was captured for a batch of {batch_size}, got {tuple(x.shape)}")
        static_in.copy_(x)
        g.replay()
        return static_out.clone()

    return step
