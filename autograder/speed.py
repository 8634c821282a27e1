"""The speed check every exercise uses: interleaved timing against the baseline, timed outputs checked,
a pass / fail / inconclusive verdict, and a diagnosis when it is slow."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext

import torch

from autograder.correctness import CheckFailed, Tolerance, check_outputs
from autograder.diagnosis import diagnose_speed
from autograder.grader import GradeContext, Inconclusive
from autograder.timing import clone_outputs, compare

_double = torch.Tensor.double
_sum = torch.Tensor.sum
_abs = torch.Tensor.abs


def _checksum(out) -> tuple:
    """Immutable Python numbers summarising a tensor: proves the grader's expected outputs were not altered."""
    if isinstance(out, torch.Tensor):
        d = _double(out.detach())
        return (float(_sum(d)), float(_sum(_abs(d))), tuple(out.shape))
    if isinstance(out, (tuple, list)):
        return tuple(_checksum(o) for o in out)
    return (out,)


def speed_check(ctx: GradeContext, baseline: Callable, candidate: Callable, inputs: Sequence[tuple], *,
                tol: Tolerance, reference: Callable | None = None, name: str = "your function",
                timed_region=nullcontext, expect_compiled: bool = True) -> tuple[str, dict]:
    """Compare ``candidate`` with ``baseline`` on ``inputs`` (fresh tensors, rotated) under the course protocol.

    Expected outputs come from ``reference`` (default: the baseline) on copies of the inputs, computed by
    the grader before the candidate runs, with checksums held as Python numbers.
    """
    gate = ctx.gate()
    reference = reference or baseline
    expected = [clone_outputs(reference(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args]))
                for args in inputs]
    sums = [_checksum(e) for e in expected]

    def check(out, index):
        if _checksum(expected[index]) != sums[index]:
            raise CheckFailed("the grader's expected output changed while your code ran (something modified "
                              "the grader's memory)", "a submission must not reach into the grader")
        check_outputs(out, expected[index], tol, f"{name}'s output during timing (input {index})")

    recompiles_before = len(ctx.events.recompiles) if ctx.events is not None else 0
    comparison = compare(baseline, candidate, inputs, device=ctx.device, gate=gate, check=check,
                         timed_region=timed_region, baseline_name=ctx.exercise.baseline, candidate_name=name)
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
    if comparison.verdict == "pass":
        return f"{comparison.summary()}", details
    reasons = diagnose_speed(comparison, events, cuda=ctx.cuda, expect_compiled=expect_compiled)
    details["diagnosis"] = reasons
    if comparison.verdict == "inconclusive":
        raise Inconclusive(f"inconclusive after {comparison.attempts} measurements: {comparison.summary()}",
                           details)
    err = CheckFailed(f"too slow: {comparison.summary()}", "; ".join(reasons))
    err.details = details
    raise err
