"""Exercise 05's workload: an encoder serving one request at a time, and what the grader runs in the
submission's process (a stop for runaway compiles, the request counter read back)."""

from __future__ import annotations

import torch

from autograder.course.models import make_encoder

CONFIGS = {  # (d, heads, layers, min_len, max_len, warm-up requests, unseen lengths)
    "smoke": (32, 4, 2, 4, 32, 12, 8),
    "full": (512, 8, 2, 16, 256, 24, 16),
}


def build_model(size: str, seed: int, device) -> torch.nn.Module:
    d, heads, layers, _, max_len, _, _ = CONFIGS[size]
    return make_encoder(d, heads, layers, max_len, device, seed=seed)


class GraphBudgetExceeded(Exception):
    """Raised from Dynamo's compile-start callback: a submission that compiles graph after graph is stopped."""


def install_graph_budget(limit: int) -> bool:
    """Stop the next compile after ``limit`` graphs (Dynamo's compile-start callback raises), so a server that
    compiles every length fails in seconds, not after minutes. ``torch._dynamo.reset()`` removes it. False
    where the callback API is missing (older torch)."""
    try:
        from torch._dynamo.callback import callback_handler
    except ImportError:
        return False
    count = 0

    def on_start(args=None, *rest):
        nonlocal count
        trigger = getattr(args, "callback_trigger", None)  # CUDA-graph recordings start callbacks too
        if trigger is not None and trigger.name != "DYNAMO":
            return
        count += 1
        if count > limit:
            raise GraphBudgetExceeded(f"a {count}th graph was about to be compiled")

    callback_handler.register_start_callback(on_start)
    return True


def requests_of(model) -> int | None:
    """``model.requests`` as a number (what the submission's process says: self-reported)."""
    value = model.requests
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return int(value)
    return value if isinstance(value, int) else None


def overlap_chain(fresh: torch.Tensor, previous: torch.Tensor) -> torch.Tensor:
    """The next request: fresh values, with the signs of the previous output on the positions both share."""
    m = min(fresh.shape[1], previous.shape[1])
    x = fresh.clone()
    x[:, :m] = torch.copysign(fresh[:, :m], previous[:, :m])
    return x
