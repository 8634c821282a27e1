# outcome: rejected | kind: wrong | checks: few_graphs | reason: recompile | device: any
# Known wrong: pads to buckets and masks correctly, but compiles each bucket the first time a request needs
# it. When longer requests arrive than the warm-up stream had, a bucket compiles in the middle of serving.
import torch


def make_server(model, traffic):
    encode = torch.compile(model.encode, dynamic=False)
    step = model.max_len // 4

    def handle(x):
        model.requests += 1
        t = x.shape[1]
        length = -(-t // step) * step
        mask = torch.arange(length, device=x.device)[None] >= t
        return encode(torch.nn.functional.pad(x, (0, 0, 0, length - t)), mask)[:, :t]

    return handle
