"""A timed block of calls, run the same way on both sides: the submission's function in the worker, the
baseline in the judge. Same code, same per-call overhead, so the speedup compares the functions alone.

Each call reads its inputs from slots of the judge's input pool; with ``chain`` its first input is first made
from the previous call's output (``x = chain(fresh, previous)``), so no call's input exists before the call
before it has finished: a block cannot be computed ahead in one batch. Each output is copied into its slot of
the judge's output pool: at once (an output may be reused by the next call, as CUDA graphs do), or at the end
of the block (``keep``: every output must still hold its values when the block ends). In the worker a kept
block is two requests: the calls, then ``collect`` into slots the judge deals out only after the calls, so code
that copied each output out early (a rebound run_block) would not know where to put it: whatever runs in the
worker pays a copy of every output after the calls, as the honest path does.
"""

from __future__ import annotations

import torch

from autograder.core.timing import synchronize


class OutputError(Exception):
    """A call returned something that cannot be its output (not a tensor, another shape or dtype)."""


def _plain(obj, depth: int = 0):
    """``obj`` if it is JSON made of lists, dicts, strings and numbers (small enough), else raise TypeError."""
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    if isinstance(obj, str):
        return obj[:200_000]
    if depth < 6 and isinstance(obj, (list, tuple)) and len(obj) <= 10_000:
        return [_plain(o, depth + 1) for o in obj]
    if depth < 6 and isinstance(obj, dict) and len(obj) <= 10_000:
        return {str(k): _plain(v, depth + 1) for k, v in obj.items()}
    raise TypeError


def describe(obj):
    """A JSON-safe description of a value from the worker: plain data as it is, tensors by their form, other
    objects by their type."""
    if obj is None or isinstance(obj, (bool, int, float, str, list, dict)):
        try:
            return {"type": type(obj).__name__, "value": _plain(obj)}
        except TypeError:
            pass
    if isinstance(obj, torch.Tensor):
        return {"type": type(obj).__name__, "shape": list(obj.shape), "dtype": str(obj.dtype).removeprefix("torch."),
                "device": str(obj.device), "tensor": True, "plain": type(obj) is torch.Tensor}
    return {"type": type(obj).__name__, "callable": callable(obj)}


def form(t) -> str:
    if isinstance(t, torch.Tensor):
        return f"{type(t).__name__}(shape={tuple(t.shape)}, dtype={t.dtype}, device={t.device})"
    return f"{type(t).__name__} {t!r}"[:120]


def copy_output(slot: torch.Tensor, out, index: int | None = None) -> None:
    which = f"call {index + 1} " if index is not None else ""
    if type(out) is not torch.Tensor:
        raise OutputError(f"{which}returned {form(out)}; it must return a torch.Tensor (not a subclass, a tuple, "
                          "a number or None)")
    if out.shape != slot.shape or out.dtype != slot.dtype or out.device != slot.device:
        raise OutputError(f"{which}returned {form(out)}, expected shape {tuple(slot.shape)}, dtype {slot.dtype}, "
                          f"device {slot.device}")
    slot.copy_(out.detach())


def run_block(fn, calls: list[list], outs: list[torch.Tensor] | None, *, chain=None, keep: bool = False,
              finish=None, device=None) -> list:
    """Call ``fn`` once per entry of ``calls`` (argument lists), writing each output into ``outs``; then run
    ``finish()`` (copy a model's weights out, say) and wait for the device. With ``keep`` and no ``outs`` (the
    worker's side of a kept block), returns the outputs for ``collect``."""
    previous, kept = None, []
    for index, args in enumerate(calls):
        if chain is not None and previous is not None:
            args = [chain(args[0], previous), *args[1:]]
        try:
            out = fn(*args)
        except BaseException:
            synchronize(device)  # the outputs copied before the call that raised are in the pool when it is read
            raise
        if keep:
            kept.append(out)
        else:
            copy_output(outs[index], out, index)
        previous = out
    if keep and outs is not None:
        collect(kept, outs)
    if finish is not None:
        finish()
    synchronize(device)
    return kept if outs is None else []


def collect(kept: list, outs: list[torch.Tensor]) -> None:
    """Every kept output of a block into its slot, as the block ends."""
    if len(kept) != len(outs):
        raise OutputError(f"the block kept {len(kept)} outputs for {len(outs)} slots")
    for index, (slot, out) in enumerate(zip(outs, kept, strict=True)):
        copy_output(slot, out, index)


def same(x):
    """The object itself (the judge asks for a kept output to be copied into a slot)."""
    return x


def copysign_chain(fresh: torch.Tensor, previous: torch.Tensor) -> torch.Tensor:
    """The next input: the fresh values' magnitudes with the signs of the previous output (same shapes). Its
    values look like fresh noise, yet nobody can know them before the previous call has finished."""
    return torch.copysign(fresh, previous)
