"""Exercise 02's workload: the eager training step to beat, the op chains a NaN-hunting backend is graded on, and
what the grader runs in the submission's process (a step, then the weights copied out)."""

from __future__ import annotations

import torch

from autograder.core.compile_events import capture_compile_events
from autograder.course.models import BlockConfig, make_model, mse

CONFIGS = {  # (model, batch); the smoke size keeps CPU compiles to seconds
    "smoke": (BlockConfig(dim=64, heads=2, layers=2, seq=32), 2),
    # H200, torch 2.11, in one process: eager step 15.5 ms, compiled model + optimizer 5.0 ms (3.1x); d256 T256 B16
    # gave 2.6x there and 2.1-2.5x through the grader's process boundary (.gpu probe, 2026-11-23).
    "full": (BlockConfig(dim=128, heads=4, layers=4, seq=128), 8),
}
LR = 1e-3
SGD_LR = 1.0


def train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor,
               y: torch.Tensor) -> torch.Tensor:
    """The eager baseline. x, y: (B, T, dim) -> the loss before the update, a 0-dim tensor."""
    loss = mse(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def make_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=LR)


def make_sgd(model: torch.nn.Module) -> torch.optim.Optimizer:
    """Plain SGD with a learning rate of 1: a step moves every weight by exactly minus its gradient, so the weights
    after a step show the gradient to whoever compares them with the weights before (the grader, in its own
    memory). AdamW would hide it: its first update is about lr times the gradient's sign."""
    return torch.optim.SGD(model.parameters(), lr=SGD_LR)


def build_model(size: str, seed: int, device) -> torch.nn.Module:
    cfg, _ = CONFIGS[size]
    return make_model(cfg, device, seed=seed)


def param_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def copy_params(model: torch.nn.Module, into: torch.Tensor) -> None:
    """Every parameter, flattened in order, into ``into`` (the end of a timed block: the step's effect)."""
    offset = 0
    with torch.no_grad():
        for p in model.parameters():
            into[offset:offset + p.numel()].copy_(p.detach().reshape(-1))
            offset += p.numel()


def load_params(model: torch.nn.Module, flat: torch.Tensor) -> None:
    offset = 0
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()


def stepped(step, model, x, y, params: torch.Tensor):
    """``step(x, y)``, then the weights after it into ``params``; returns the loss. With the plain SGD of
    :func:`make_sgd` the weights' change is the step's gradient, which the grader reads from its own memory."""
    loss = step(x, y)
    copy_params(model, params)
    return loss.detach() if isinstance(loss, torch.Tensor) else loss


def step_events(step, *batches) -> dict:
    """Graphs and breaks while ``step`` runs on (x, y) pairs; what this process says (self-reported)."""
    with capture_compile_events() as events:
        for x, y in zip(batches[::2], batches[1::2], strict=True):
            step(x, y)
    events = events.snapshot()
    return {"graphs": events.graphs, "kernels": events.kernels,
            "inside": [str(b).rstrip(".") for b in events.graph_breaks if b.inside_forward],
            "breaks": len(events.graph_breaks)}


# ---- the NaN hunter's hidden functions ----

def _half(x):
    return x * 0.5


def _shift(x):
    return x + 1.0


def _neg(x):
    return x.neg()


def _log_of_norm(x):  # a log that stays finite: a hunter that guesses by an op's name meets it first
    return torch.log(x.abs() + 1.0)


def _scaled(x):  # a division that stays finite, likewise
    return x / (x.abs() + 1.0)


def _log_of_negative(x):  # NaN in every element: abs, add and neg stay finite, the log does not
    return torch.log(-(x.abs() + 1.0))


def _over_zero(x):  # inf where x != 0, NaN where x == 0: the subtraction stays finite, the division does not
    return x / (x - x)


# Every op keeps finite values finite, within a few units of its input (no square: a chain of them overflows)
OPS = (torch.sin, torch.cos, torch.tanh, torch.relu, torch.sigmoid, torch.abs, _half, _shift, _neg, _log_of_norm,
       _scaled)
POISONS = (_log_of_negative, _over_zero)
DECOYS = (_log_of_norm, _scaled)  # DECOYS[i] looks like POISONS[i] by name, and stays finite


def _chain(ops):
    def run(x):
        for op in ops:  # a Python loop over a list: Dynamo unrolls it into the graph
            x = op(x)
        return x
    return run


def hidden_function(kind: str, first: list, second: list | None = None):
    """A chain of ops; "break": two chains with ``torch._dynamo.graph_break()`` between them; "branch": a chain,
    then a data-dependent ``if`` (Dynamo breaks there), then another. Each chain is a list of ``OPS`` indices, and
    an entry ``("poison", i)`` is ``POISONS[i]``, the op where the values stop being finite."""
    def op(entry):
        return POISONS[entry[1]] if isinstance(entry, (list, tuple)) else OPS[entry]

    head, tail = _chain([op(e) for e in first]), _chain([op(e) for e in (second or [])])
    if kind == "chain":
        return head

    if kind == "break":
        def with_break(x):
            x = head(x)
            torch._dynamo.graph_break()
            return tail(x)
        return with_break

    def with_branch(x):
        x = head(x)
        if x.sum() > 0:  # a NaN sum is not > 0: the branch a poisoned head takes is the second
            return tail(x)
        return -tail(x)
    return with_branch


def first_non_finite(hunter) -> dict:
    """What ``hunter.first`` holds, checked for its form: ``{"first": None}``, ``{"first": [graph, node name]}``, or
    ``{"bad": description}``."""
    first = getattr(hunter, "first", "<missing>")
    if first is None:
        return {"first": None}
    if isinstance(first, str) or not isinstance(first, (list, tuple)) or len(first) != 2:
        return {"bad": f"{type(first).__name__} {first!r:.60}"}
    graph, node = first
    if type(graph) is not int or not isinstance(node, str):
        return {"bad": f"({type(graph).__name__}, {type(node).__name__})"}
    return {"first": [graph, str(node)]}


def hunt(hunter_cls, kind: str, first: list, second: list | None, x: torch.Tensor, out: torch.Tensor) -> dict:
    """Compile a hidden function with ``hunter_cls()`` as the backend, from a clean Dynamo cache, and call it once;
    the result goes into ``out``; returns what the hunter found (:func:`first_non_finite`)."""
    fn = hidden_function(kind, first, second)
    torch._dynamo.reset()  # the hidden functions share code objects: without this a second compile is cached
    hunter = hunter_cls()
    try:
        out.copy_(torch.compile(fn, backend=hunter)(x.clone()))
    finally:
        torch._dynamo.reset()
    return first_non_finite(hunter)
