"""Why is it slow? A troubleshooting checklist, automated from what the grader observed."""

from __future__ import annotations

from autograder.core.compile_events import CompileEvents
from autograder.core.timing import Comparison, format_seconds


def diagnose_speed(comparison: Comparison, events: CompileEvents | None, *, cuda: bool,
                   expect_compiled: bool = True, busy: float | None = None) -> list[str]:
    """Plain-language reasons for a slow result, most likely first. ``events`` and ``busy`` come from the
    submission's process (self-reported): they explain a verdict, they never make it."""
    reasons = []
    if events is not None and expect_compiled:
        if events.graphs == 0 and events.graph_breaks:
            # a break with no graph at all: Dynamo gave up on the frame (a break inside a loop does that), wherever
            # the break was, the grader's own workload included (exercise 01's checked chain)
            reasons.append(f"torch.compile compiled no graph: it met a graph break at {events.graph_breaks[0]} and "
                           "ran the whole function eagerly (a break inside a loop makes it give up on the frame)")
        elif events.graphs == 0:
            reasons.append("no graph was compiled while your function ran: is it wrapped in torch.compile "
                           "(or was it compiled with a decorator that never ran)?")
        elif events.kernels == 0:
            reasons.append("torch.compile captured graphs but generated no kernels: backend='eager' or "
                           "'aot_eager' only trace; the default backend (inductor) is the one that fuses")
        # Breaks in the grader's own probe functions (exercise 02's hidden functions) are not the learner's.
        for brk in [b for b in events.graph_breaks if "/autograder/" not in b.where][:5]:
            reasons.append(f"graph break at {brk}")
        for rec in events.recompiles[:5]:
            reasons.append(f"recompile: {rec}")
        if events.cudagraph_skips:
            reasons.append(f"CUDA graphs were skipped {events.cudagraph_skips} time(s) "
                           "(TORCH_LOGS=cudagraphs, or perf_hints before torch 2.11, says why)")
    cand = comparison.candidate
    if cand.first_call_s > 20 * cand.median_s and cand.first_call_s > 0.5:
        reasons.append(f"the first call took {format_seconds(cand.first_call_s)} (compiling); the grader "
                       "excludes it, but time it yourself if you compile inside the function on every call")
    ratio = cand.event_over_wall
    if cuda and ratio is not None and ratio < 0.5:
        reasons.append(f"CUDA events on the current stream saw only {ratio:.0%} of the wall time: work on "
                       "another stream or thread, or heavy Python overhead between kernels (launch-bound)")
    if cuda and busy is not None and busy < 0.5:
        reasons.append(f"launch-bound: the GPU was busy only {busy:.0%} of the time, waiting for Python and kernel "
                       "launches in between; mode='reduce-overhead' or CUDA graphs remove that gap")
    if comparison.speedup < 1.1 and not reasons:
        reasons.append("your version runs at about the baseline's speed: is the fast path actually used?")
    return reasons
