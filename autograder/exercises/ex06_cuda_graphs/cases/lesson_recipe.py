# outcome: rejected | kind: wrong | checks: fresh_inputs,batch_size,fresh_process,speed | reason: captur | device: gpu
# Known wrong (issue 39 item 2): lesson 6's cell 7 copied as it is, plus the shape check: warm-up on a side stream,
# `with torch.cuda.graph(g): static_out = model(static_in)`, copy in, replay, clone. This model decides on the host
# (EarlyExit.forward: `if self.typical(h):`, Tensor.__bool__ -> aten._local_scalar_dense, a copy to the host and a
# stream synchronisation), and a sync inside a capture is refused by CUDA ("operation not permitted when stream is
# capturing"; lesson 6, section 3 shows .item() refused): make_graphed_step raises, so every check fails with the
# capture error and the hint that says where to look. The warm-up runs: eagerly the read is allowed.
# Verified on a CPU: the forward makes one host read per call (tests/test_exercises.py); not yet on a GPU: that the
# capture raises there on the course's torch (lesson 6's cell 13 shows the rule on an H200 with torch 2.11).
import torch


def make_graphed_step(model, batch_size):
    device = next(model.parameters()).device
    width = model.exit.normalized_shape[0]
    static_in = torch.zeros(batch_size, width, device=device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):  # warm-up, outside the capture
            model(static_in)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g), torch.no_grad():
        static_out = model(static_in)  # recorded, not run

    def step(x):
        if x.shape != static_in.shape:
            raise ValueError(f"this CUDA graph was captured for a batch of {batch_size}, got {tuple(x.shape)}")
        static_in.copy_(x)
        g.replay()
        return static_out.clone()

    return step
