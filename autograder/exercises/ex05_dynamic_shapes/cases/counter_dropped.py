# outcome: diagnosed | kind: wrong | checks: few_graphs | note: model.requests | device: any
# Known wrong: one dynamic graph for every length (fast, no recompile), but the request counter is gone:
# compiling model.encode skips forward, and nothing counts requests any more.
import torch


def make_server(model, traffic):
    return torch.compile(model.encode, dynamic=True)
