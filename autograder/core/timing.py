"""Timing PyTorch code the way the user feels it.

The protocol, used by the grader and by the lessons' timing demos:

* host wall-clock (``time.perf_counter``) around **blocks** of calls, with a device-wide
  ``torch.cuda.synchronize()`` before and after each block: launch overhead and work on every stream
  count (CUDA events alone hide both: a side stream is invisible to them);
* **warm-up until steady** before timing (at least 3 calls: compile, CUDA-graph warm-up and recording
  stay out of the numbers); the first call's time is kept as the compile cost;
* blocks of at least ~10 ms, **median** over at least 21 blocks;
* baseline and candidate **interleaved** over several rounds, so drift (clocks, other load) hits both;
* **fresh inputs** rotated through the timed calls; one output per block, picked at random, is cloned at
  once and checked, so skipping work or returning stale results cannot pass;
* CUDA-event time of each block is recorded beside the host time, to flag work hidden on a side stream.

Nothing here touches CUDA when the device is a CPU.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field

import torch

# Bound at import: a lesson cell that patches time.perf_counter does not change what the course measures.
_perf_counter = time.perf_counter
_cuda_synchronize = torch.cuda.synchronize
_Event = torch.cuda.Event
_elapsed_time = torch.cuda.Event.elapsed_time
_record = torch.cuda.Event.record

MIN_WARMUP_CALLS = 3
MIN_BLOCK_S = 0.010
BLOCKS = 21
ROUNDS = 3


def synchronize(device: torch.device | str | None) -> None:
    """Wait for all work on ``device`` (every stream). No-op on a CPU."""
    if device is not None and torch.device(device).type == "cuda":
        _cuda_synchronize(device)


def clone_outputs(out):
    """Clone every tensor in ``out`` (a tensor, or a tuple/list/dict of them); other values are kept."""
    if isinstance(out, torch.Tensor):
        return out.detach().clone()
    if isinstance(out, (tuple, list)):
        return type(out)(clone_outputs(o) for o in out)
    if isinstance(out, dict):
        return {k: clone_outputs(v) for k, v in out.items()}
    return out


@dataclass
class Timing:
    """Per-call times of one function, one entry per timed block (seconds)."""

    name: str
    per_call_s: list[float]
    calls_per_block: int
    first_call_s: float  # the first call alone: includes compiling, CUDA-graph recording...
    warmup_calls: int
    event_per_call_s: list[float] = field(default_factory=list)  # CUDA events, current stream

    @property
    def median_s(self) -> float:
        return statistics.median(self.per_call_s)

    @property
    def spread(self) -> float:
        """Relative interquartile range of the block times (0.05 = blocks within about +-2.5%)."""
        if len(self.per_call_s) < 4:
            return 0.0
        q = statistics.quantiles(self.per_call_s, n=4)
        return (q[2] - q[0]) / self.median_s

    @property
    def event_over_wall(self) -> float | None:
        """CUDA-event time over host time. Well under 1: work the current stream did not see (side streams)."""
        if not self.event_per_call_s:
            return None
        return statistics.median(self.event_per_call_s) / self.median_s

    def __str__(self) -> str:
        return f"{self.name}: {format_seconds(self.median_s)} per call (spread {self.spread:.0%})"


def format_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def _block(fn, inputs, start_index, calls, device, check, rng, events):
    """Time ``calls`` calls of fn, rotating through inputs. Returns (host s, event s or None)."""
    check_at = rng.randrange(calls) if check is not None else -1
    snapshot = None
    synchronize(device)
    if events:
        start_ev, end_ev = _Event(enable_timing=True), _Event(enable_timing=True)
        _record(start_ev)
    t0 = _perf_counter()
    for j in range(calls):
        index = (start_index + j) % len(inputs)
        out = fn(*inputs[index])
        if j == check_at:
            # Cloned at once: a later call may legitimately reuse this output's memory (CUDA graphs).
            snapshot = (index, clone_outputs(out))
    if events:
        _record(end_ev)
    synchronize(device)
    host = _perf_counter() - t0
    event = _elapsed_time(start_ev, end_ev) / 1e3 if events else None
    if snapshot is not None:
        check(snapshot[1], snapshot[0])
    return host, event


def _warm_up(fn, inputs, device, check, max_warmup_s: float, max_warmup_calls: int):
    """Call fn until its time per call is steady. Returns (first call s, calls made, s per call estimate)."""
    synchronize(device)
    t0 = _perf_counter()
    out = fn(*inputs[0])
    synchronize(device)
    first = _perf_counter() - t0
    if check is not None:
        check(clone_outputs(out), 0)
    calls, recent = 1, []
    deadline = _perf_counter() + max_warmup_s
    while True:
        synchronize(device)
        t0 = _perf_counter()
        fn(*inputs[calls % len(inputs)])
        synchronize(device)
        recent.append(_perf_counter() - t0)
        calls += 1
        if calls >= MIN_WARMUP_CALLS and len(recent) >= 3:
            last = recent[-3:]
            if max(last) <= 1.5 * min(last):
                break
        if calls >= max_warmup_calls or _perf_counter() > deadline:
            break
    return first, calls, statistics.median(recent[-3:])


def measure(fn: Callable, inputs: Sequence[tuple], *, device="cpu", name: str = "fn",
            check: Callable | None = None, blocks: int = BLOCKS, min_block_s: float = MIN_BLOCK_S,
            max_warmup_s: float = 30.0, max_warmup_calls: int = 200, seed: int = 0) -> Timing:
    """Time one function alone: warm-up, then ``blocks`` blocks of calls. See the module docstring."""
    runner = _Runner(fn, list(inputs), device, name, check, min_block_s, max_warmup_s, max_warmup_calls, seed)
    runner.warm_up()
    for _ in range(blocks):
        runner.run_block()
    return runner.timing()


def time_fn(fn: Callable, *args, device=None, name: str | None = None, **kwargs) -> Timing:
    """Convenience for lessons: time ``fn(*args)`` with the course protocol (device taken from the args)."""
    if device is None:
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))
    return measure(fn, [args], device=device, name=name or getattr(fn, "__name__", "fn"), **kwargs)


class _Runner:
    """Warm-up state and blocks of one function, so two functions can be interleaved."""

    def __init__(self, fn, inputs, device, name, check, min_block_s, max_warmup_s, max_warmup_calls, seed,
                 refresh=None):
        if not inputs:
            raise ValueError("need at least one input tuple")
        self.fn, self.inputs, self.device, self.name, self.check = fn, inputs, device, name, check
        self.refresh = refresh
        self.min_block_s, self.max_warmup_s, self.max_warmup_calls = min_block_s, max_warmup_s, max_warmup_calls
        self.rng = random.Random(seed)
        self.events = torch.device(device).type == "cuda"
        self.per_call, self.event_per_call, self.next_index = [], [], 0

    def warm_up(self):
        self.first, self.warmup_calls, estimate = _warm_up(
            self.fn, self.inputs, self.device, self.check, self.max_warmup_s, self.max_warmup_calls)
        self.calls = max(1, math.ceil(self.min_block_s / max(estimate, 1e-7)))
        # One trial block corrects the estimate (single calls overstate the time of fast functions).
        host, _ = _block(self.fn, self.inputs, 0, self.calls, self.device, None, self.rng, False)
        if host < self.min_block_s:
            self.calls = max(self.calls, math.ceil(self.calls * self.min_block_s / max(host, 1e-7)))

    def run_block(self) -> float:
        if self.refresh is not None:
            self.refresh(self.inputs)  # new values in the same tensors: memoising on identity gets caught
        host, event = _block(self.fn, self.inputs, self.next_index, self.calls, self.device, self.check,
                             self.rng, self.events)
        self.next_index = (self.next_index + self.calls) % len(self.inputs)
        self.per_call.append(host / self.calls)
        if event is not None:
            self.event_per_call.append(event / self.calls)
        return host / self.calls

    def timing(self, start: int = 0) -> Timing:
        return Timing(self.name, self.per_call[start:], self.calls, self.first, self.warmup_calls,
                      self.event_per_call[start:])


@dataclass
class Comparison:
    """Baseline vs candidate under the interleaved protocol, with a verdict against a speed gate."""

    baseline: Timing
    candidate: Timing
    gate: float
    round_speedups: list[float]
    attempts: int
    verdict: str  # "pass", "fail" or "inconclusive"

    @property
    def speedup(self) -> float:
        return self.baseline.median_s / self.candidate.median_s

    @property
    def speedup_min(self) -> float:
        return min(self.round_speedups)

    @property
    def speedup_max(self) -> float:
        return max(self.round_speedups)

    def summary(self) -> str:
        return (f"{self.speedup:.2f}x (rounds {self.speedup_min:.2f}x..{self.speedup_max:.2f}x; gate "
                f"{self.gate:g}x): {self.baseline.name} {format_seconds(self.baseline.median_s)}, "
                f"{self.candidate.name} {format_seconds(self.candidate.median_s)} per call")


def verdict_for(round_speedups: Sequence[float], gate: float) -> str:
    """"pass" if every round clears the gate, "fail" if none does, else "inconclusive" (noise straddles it)."""
    if all(s >= gate for s in round_speedups):
        return "pass"
    if all(s < gate for s in round_speedups):
        return "fail"
    return "inconclusive"


def compare_runners(base, cand, *, gate: float = 1.5, rounds: int = ROUNDS, blocks: int = BLOCKS,
                    retries: int = 2, timed_region=nullcontext, phase=None) -> Comparison:
    """The interleaved protocol over two runners (anything with ``warm_up()``, ``run_block() -> s per call``,
    ``per_call`` and ``timing(start)``: a function here, or a function in another process).

    Each round times ``blocks // rounds`` blocks of each, alternating which goes first. The verdict is "pass"
    when every round's speedup clears the gate, "fail" when none does; otherwise the measurement is noisy: it
    is repeated (up to ``retries`` times) and, if still split, "inconclusive". ``timed_region()`` wraps the
    timed blocks, not the warm-up; ``phase(runner)`` wraps each runner's turn (the grader pauses the
    submission's process while the baseline runs).
    """
    phase = phase or (lambda runner: nullcontext())
    per_round = max(1, math.ceil(blocks / rounds))
    with phase(base):
        base.warm_up()
    with phase(cand):
        cand.warm_up()
    attempts = 0
    while True:
        attempts += 1
        # Only the last attempt's blocks are reported.
        start_b, start_c = len(base.per_call), len(cand.per_call)
        round_speedups = []
        with timed_region():
            for r in range(rounds):
                order = (base, cand) if r % 2 == 0 else (cand, base)
                times = {}
                for runner in order:
                    with phase(runner):
                        times[id(runner)] = [runner.run_block() for _ in range(per_round)]
                round_speedups.append(statistics.median(times[id(base)]) / statistics.median(times[id(cand)]))
        verdict = verdict_for(round_speedups, gate)
        if verdict != "inconclusive" or attempts > retries:
            break
    return Comparison(base.timing(start_b), cand.timing(start_c), gate, round_speedups, attempts, verdict)


def compare(baseline: Callable, candidate: Callable, inputs: Sequence[tuple], *, device="cpu",
            gate: float = 1.5, check: Callable | None = None, rounds: int = ROUNDS, blocks: int = BLOCKS,
            retries: int = 2, min_block_s: float = MIN_BLOCK_S, timed_region=nullcontext,
            baseline_name: str = "baseline", candidate_name: str = "candidate", seed: int = 0,
            max_warmup_s: float = 30.0, refresh: Callable | None = None) -> Comparison:
    """Measure ``candidate`` against ``baseline`` (both in this process) and decide whether it clears ``gate``
    (see :func:`compare_runners`). ``check(output, input_index)`` validates the candidate's timed outputs."""
    inputs = list(inputs)
    base = _Runner(baseline, inputs, device, baseline_name, None, min_block_s, max_warmup_s, 200, seed)
    cand = _Runner(candidate, inputs, device, candidate_name, check, min_block_s, max_warmup_s, 200, seed + 1,
                   refresh)
    return compare_runners(base, cand, gate=gate, rounds=rounds, blocks=blocks, retries=retries,
                           timed_region=timed_region)
