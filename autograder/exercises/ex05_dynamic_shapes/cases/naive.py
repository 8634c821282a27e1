# outcome: rejected | kind: wrong | checks: few_graphs | gpu_checks: speed | reason: recompile | device: any
# Known wrong: compiles the model as it is. The request counter (a Python int attribute) is a guard that
# fails on every call, so each request recompiles until the recompile limit (8), then the model runs eager.
import torch


def make_server(model, traffic):
    return torch.compile(model)
