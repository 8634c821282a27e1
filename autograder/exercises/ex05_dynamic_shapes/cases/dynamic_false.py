# outcome: rejected | kind: wrong | checks: few_graphs | gpu_checks: speed | reason: recompile | device: any
# Known wrong: the counter is kept outside the compiled code, but dynamic=False compiles one graph per length:
# the stream hits the recompile limit (8) and every later length silently runs eager.
import torch


def make_server(model, traffic):
    encode = torch.compile(model.encode, dynamic=False)

    def handle(x):
        model.requests += 1
        return encode(x)

    return handle
