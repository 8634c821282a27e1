"""The speed check every exercise uses: interleaved timing against the baseline, timed outputs checked,
a pass / fail / inconclusive verdict, the distance to the hardware's limit, and a diagnosis when slow.

Against memoisation: before each timed block of the candidate the inputs get new values in the same
tensors (same ``data_ptr``, ``id``), so a cache keyed on identity returns stale results, which the check
of one randomly chosen call per block catches. A cache keyed on ``_version`` or on content skips work
inside a block: for memory-bound exercises that shows up as "faster than the GPU's memory allows".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from contextlib import nullcontext

import torch

from autograder.correctness import CheckFailed, Tolerance, check_outputs, checksum
from autograder.diagnosis import diagnose_speed
from autograder.grader import GradeContext, Inconclusive
from autograder.timing import compare, format_seconds, synchronize

_copy = torch.Tensor.copy_
_mul = torch.Tensor.mul_
_clone = torch.Tensor.clone
# A fused kernel that reads its inputs and writes its output once cannot beat a copy of the same bytes; it
# measured 65-91% of it (FACTS.md). A content-hash memo that only reads the input measured 108%.
CEILING = 1.0
_copy_bandwidth: dict = {}


def copy_bandwidth(device: torch.device) -> float:
    """Bytes/s of a large device-to-device copy (read + write): the memory ceiling a fused kernel can reach."""
    if device not in _copy_bandwidth:
        src = torch.empty(2**30, dtype=torch.uint8, device=device)
        dst = torch.empty_like(src)
        dst.copy_(src)
        best = 0.0
        for _ in range(5):  # the best of five: a ceiling, not a typical value
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(5):
                dst.copy_(src)
            end.record()
            synchronize(device)
            best = max(best, 2 * src.numel() * 5 / (start.elapsed_time(end) / 1e3))
        _copy_bandwidth[device] = best
        del src, dst
    return _copy_bandwidth[device]


def gpu_busy_fraction(fn, args, device, wall_s: float) -> float | None:
    """Kernel time of one profiled call over the measured wall time per call: how launch-bound it is.

    Near 1: the GPU is the bottleneck. Far below 1: it waits for Python and kernel launches (launch-bound),
    which CUDA graphs and reduce-overhead remove. None when the profiler cannot tell.
    """
    from autograder.profiling import profile_call

    try:
        kernel_s = profile_call(fn, *args, device=device, warmup=0).device_time_s
    except Exception:  # the profiler is an aid for the result card, never a reason to fail a grading
        return None
    return min(kernel_s / wall_s, 1.0) if wall_s > 0 and kernel_s > 0 else None


def speed_check(ctx: GradeContext, baseline: Callable, candidate: Callable, inputs: Sequence[tuple], *,
                tol: Tolerance, reference: Callable | None = None, name: str = "your function",
                timed_region=nullcontext, expect_compiled: bool = True,
                bytes_per_call: int | None = None, check_output: Callable | None = None) -> tuple[str, dict]:
    """Compare ``candidate`` with ``baseline`` on ``inputs`` (fresh values each block, rotated) under the
    course protocol. One output per block is checked against ``reference`` (default: the baseline), run by
    the grader on copies of that call's inputs right after the block. ``bytes_per_call``: the fewest bytes
    one call must move (memory-bound exercises): the result card shows the fraction of copy bandwidth.
    ``check_output(out, index)`` replaces the comparison with the reference where one call's output cannot be
    recomputed afterwards (a training step changes the weights it ran with).
    """
    gate = ctx.gate()
    reference = reference or baseline
    inputs = [tuple(args) for args in inputs]
    sources = [tuple(_clone(a) if isinstance(a, torch.Tensor) else a for a in args) for args in inputs]
    sums: list[tuple] = [checksum(args) for args in inputs]
    rng = random.Random(ctx.secret)

    def refresh(current):
        with torch.no_grad():
            for i, (args, src) in enumerate(zip(current, sources, strict=True)):
                scale = rng.uniform(0.5, 1.5) * rng.choice((-1.0, 1.0))
                for a, s in zip(args, src, strict=True):
                    if isinstance(a, torch.Tensor) and a.is_floating_point():
                        _mul(_copy(a, s), scale)
                sums[i] = checksum(args)

    def check(out, index):
        if checksum(inputs[index]) != sums[index]:
            raise CheckFailed(f"{name} modified its inputs during timing",
                              "inputs belong to the caller: compute into new tensors")
        if check_output is not None:
            check_output(out, index)
            return
        expected = reference(*[_clone(a) if isinstance(a, torch.Tensor) else a for a in inputs[index]])
        check_outputs(out, expected, tol, f"{name}'s output during timing")

    recompiles_before = len(ctx.events.recompiles) if ctx.events is not None else 0
    comparison = compare(baseline, candidate, inputs, device=ctx.device, gate=gate, check=check,
                         timed_region=timed_region, baseline_name=ctx.exercise.baseline, candidate_name=name,
                         refresh=refresh)
    events = ctx.events.snapshot() if ctx.events is not None else None
    if events is not None:  # recompiles the grader's own shape variety caused earlier are not the point here
        events.recompiles = events.recompiles[recompiles_before:]
    details = {
        "speedup": comparison.speedup, "speedup_min": comparison.speedup_min,
        "speedup_max": comparison.speedup_max, "gate": gate,
        "baseline_s": comparison.baseline.median_s, "candidate_s": comparison.candidate.median_s,
        "baseline_spread": comparison.baseline.spread, "candidate_spread": comparison.candidate.spread,
        "compile_s": comparison.candidate.first_call_s, "blocks": len(comparison.candidate.per_call_s),
        "attempts": comparison.attempts, "event_over_wall": comparison.candidate.event_over_wall,
        "baseline_per_call_s": comparison.baseline.per_call_s,
        "candidate_per_call_s": comparison.candidate.per_call_s,
        "compile_events": events.summary() if events else "", "device": str(ctx.device),
    }
    message = comparison.summary()
    busy = gpu_busy_fraction(candidate, inputs[0], ctx.device, comparison.candidate.median_s) if ctx.cuda else None
    comparison.gpu_busy = busy
    if busy is not None:
        details["gpu_busy"] = busy
        message += f"; GPU busy {busy:.0%} of the wall time"
    if bytes_per_call and ctx.cuda:
        bandwidth = copy_bandwidth(ctx.device)
        fraction = bytes_per_call / comparison.candidate.median_s / bandwidth
        details.update(copy_bandwidth=bandwidth, fraction_of_copy_bandwidth=fraction)
        message += f"; {fraction:.0%} of this GPU's copy bandwidth"
        if fraction > CEILING:
            raise CheckFailed(
                f"{name} ran in {format_seconds(comparison.candidate.median_s)}: at {fraction:.0%} of this GPU's "
                "copy bandwidth, faster than its memory can even read the inputs and write the outputs: results "
                "are being reused (memoised), not computed", "compute every call's result from that call's inputs")
    if comparison.verdict == "pass":
        return message, details
    reasons = diagnose_speed(comparison, events, cuda=ctx.cuda, expect_compiled=expect_compiled)
    details["diagnosis"] = reasons
    if comparison.verdict == "inconclusive":
        raise Inconclusive(f"inconclusive after {comparison.attempts} measurements: {message}", details)
    err = CheckFailed(f"too slow: {message}", "; ".join(reasons))
    err.details = details
    raise err
