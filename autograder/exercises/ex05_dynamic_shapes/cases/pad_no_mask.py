# outcome: rejected | kind: wrong | checks: outputs_match | reason: differs | device: any
# Known wrong: pads every request to a bucket length and replays a CUDA graph per bucket, but does not mask
# the padding: in bidirectional attention every real position attends to the zero rows too.
import torch


def make_server(model, traffic):
    encode = torch.compile(model.encode, mode="reduce-overhead", dynamic=False)
    step = model.max_len // 4
    buckets = [step * i for i in range(1, 5)]
    device = next(model.parameters()).device
    with torch.no_grad():
        for length in buckets:
            for _ in range(3):
                encode(torch.zeros(1, length, model.dim, device=device))

    def handle(x):
        model.requests += 1
        t = x.shape[1]
        length = buckets[(t - 1) // step]
        return encode(torch.nn.functional.pad(x, (0, 0, 0, length - t)))[:, :t].clone()

    return handle
