# outcome: passed | kind: honest | checks: - | reason: legitimate | device: any
# Legitimate: the model compiled as it is, but called on a buffer of predict's own for each batch size, marked
# with torch._dynamo.mark_static_address (guarded: one graph per buffer). CUDAGraph Trees allow a graph to write
# into a static input (check_for_mutation leaves static inputs out), so the in-place standardisation of the
# buffer is recorded and replayed; each call copies x into the buffer first, so the caller's x is only read.
# Outputs cloned for the caller.
import torch


def make_predict(model):
    compiled = torch.compile(model, mode="reduce-overhead")
    buffers = {}

    def predict(x):
        buffer = buffers.get((x.shape, x.device))
        if buffer is None:
            buffer = buffers[(x.shape, x.device)] = torch.empty_like(x)
            torch._dynamo.mark_static_address(buffer, guard=True)
        buffer.copy_(x)
        return compiled(buffer).clone()
    return predict
