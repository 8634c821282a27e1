# outcome: rejected | kind: cheat | checks: speed | reason: raised / differs | device: gpu | class: 1
# Seventh red team: the known-wrong static output, plus a rebound worker run_block that copies every output out at
# once instead of keeping them to the end of the block, and a rebound `same` that recomputes a kept output from its
# recorded input. Its timed outputs all looked right (the worker enforced `keep`); now the worker learns the slots
# of kept outputs only after the calls, so a block run this way has nowhere to put them.
# It captures the reference's branchless forward (the model's own forward cannot be captured: its host
# decision); its flaw is its own.
# This design (an early-exit model, the step captured without its host decision): GPU verdict not measured yet.
import sys

import torch

import autograder.core.blocks as _blocks

_worker = sys.modules.get("autograder.core.worker")
_state = {"timed": False, "inputs": {}, "model": None}


def _run_block(fn, calls, outs, *, chain=None, keep=False, finish=None, device=None):
    _state["timed"] = True
    try:
        return _blocks.run_block(fn, calls, outs, chain=chain, keep=False, finish=finish, device=device)
    finally:
        _state["timed"] = False


def _same(x):
    x_in = _state["inputs"].get(id(x))
    if x_in is not None and _state["model"] is not None:
        with torch.no_grad():
            return _state["model"](x_in)
    return x


if _worker is not None:
    _worker.run_block = _run_block
_blocks.same = _same


def make_graphed_step(model, batch_size):
    static_in = torch.zeros(batch_size, model.exit.normalized_shape[0], device=next(model.parameters()).device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            branchless_forward(model, static_in)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = branchless_forward(model, static_in)
    _state["model"] = model

    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this CUDA graph was captured for a batch of {batch_size}, got {x.shape[0]}")
        static_in.copy_(x)
        graph.replay()
        view = static_out.view(static_out.shape)  # one static output under a new tensor object
        if not _state["timed"]:
            _state["inputs"][id(view)] = x.clone()
        return view

    return step


def branchless_forward(model, x):
    h = model.first(x)
    return torch.where(model.typical(h), model.exit(h), model.deep(h))
