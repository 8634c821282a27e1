"""Exercise 01: eager mode and your first compile.

(a) ``benchmark(fn, *args) -> float``: the steady-state seconds per call of ``fn(*args)``, graded on workloads
    whose every call lasts as long as the grader decides while it runs (GPU: the call queues work on the CUDA
    stream and returns at once, and the stream waits on a flag the grader releases, so a missing
    ``torch.cuda.synchronize()`` is caught; CPU: each call waits on the grader's answer), so nothing in the
    submission's process can know or derive the duration; and on such a workload whose first call the grader makes
    slow (a compile), with a time budget that keeps the slow call from being averaged away over a long loop.
(b) ``fast_gelu_bias(x, bias)``: ``workload.checked_gelu_bias`` (a stack of op-by-op GELU-with-bias layers that checks
    on the host after every layer that the activations are finite, and raises FloatingPointError if not), with the
    same results and the same check, at least 1.5x faster than eager. Lesson 1's recipe, torch.compile of the
    function as it is, gains nothing here: the check's host read (``if tensor:``) inside the loop makes Dynamo give up
    on the whole frame (0 graphs; seen on torch 2.13 on a CPU, and on 2.11 on an H200 for a loop with an ``.item()``
    branch: 0.98x). The reference computes the layers and their finiteness in one compiled graph and reads the verdict
    on the host once per call; dropping the check fails ``fast_gelu_bias_correct``, which probes, in an order drawn
    from the secret, with inputs on which the eager chain raises (a NaN, an infinite bias before the last layer,
    finite values that overflow at a later layer or to -inf) and with finite extremes on which it returns (a check
    of a sum, a bound, the inputs or the first layer is wrong on one of them: a red team's, 2026-11-27).
"""

from __future__ import annotations

import random
import socket
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass

import torch

from autograder.core.grading import GradeContext, RemoteError
from autograder.core.protocol import Check, CheckFailed, Exercise, Tolerance
from autograder.core.speed import SPEED_DIAGNOSTICS, SPEED_FACTS, Timed, speed_check, speed_diagnosis
from autograder.core.trust import answer, clock
from autograder.core.timing import MIN_BLOCK_S, _perf_counter
from autograder.core.wire import Entry, Fn
from autograder.exercises.ex01_eager_mode.workload import (LAYERS, PROGRESS, RELEASE, RELEASE_ALL, SIZES,
                                                           checked_gelu_bias)

ID = "01_eager_mode"
WORKLOAD = "autograder.exercises.ex01_eager_mode.workload"
# fp32 pointwise chain: Inductor's fused kernel differs from eager by rounding only (~1e-7 relative);
# computing in fp16 or bf16 is off by 1e-3 or more.
TOL = Tolerance(rtol=1e-4, atol=1e-5)
FIRST_CALL_EXTRA_S = 1.0
# benchmark() may take this long beyond the slow first call. Within it, a loop that includes the slow call
# cannot dilute it below a third of the true time: N calls of t seconds fit only if N * t <= 3 s, so the
# first call adds at least FIRST_CALL_EXTRA_S / N >= t / 3 per call (the window passes up to +25%).
BENCHMARK_BUDGET_S = 3.0
MIN_CALLS = 3  # calls of the workload the grader must see: one call timed once is not a benchmark
_RUN = "autograder.exercises.ex01_eager_mode.workload:run_benchmark"
_OUTPUTS = answer("the outputs, read from the grader's memory, against its own eager chain on its own copies of the "
                  "inputs (which must come back unchanged)", "entry")
_RAISES = answer("the type of the exception the submission raised on inputs where the grader's own eager chain raises "
                 "FloatingPointError", "entry")


# ---- (a) benchmark: workloads of unknown duration ----

@dataclass(frozen=True)
class Truth:
    """The true seconds per call: one figure on a GPU; on a CPU a range [low, high], since a loaded machine makes
    some round trips slower than others, and a benchmark's median of loop means lies between the median and the
    mean of the calls' durations."""

    low: float
    high: float

    @classmethod
    def exact(cls, seconds: float) -> Truth:
        return cls(seconds, seconds)

    def ratio(self, got: float) -> float:
        """How far ``got`` is from the range: 1 inside it, got/high above it, got/low below it."""
        return got / self.high if got > self.high else got / self.low if got < self.low else 1.0

    def __str__(self) -> str:
        if self.high - self.low < 0.01 * self.low:
            return f"{self.low * 1e3:.2f} ms"
        return f"{self.low * 1e3:.2f}-{self.high * 1e3:.2f} ms, varying with this machine's load"


def durations(seed: int, cuda: bool) -> list[float]:
    """The workloads' seconds per call, from ``seed``.

    GPU (where grades count): three, each log-uniform over 1-12 ms, so that a benchmark that returns a guess
    instead of a measurement passes about one grading in 200 (the truth is the grader's own decision, paced while
    the calls run; a guess falls in a duration's 0.8..1.25 window with odds log(1.5625)/log(12), about 0.18, for each). Two
    durations in narrow ranges, as before, let a constant pass most gradings.

    CPU (self-study and CI): a short one (6-12 ms) and a long one (20-32 ms), each call a round trip to the
    grader's process that a busy machine slows by a millisecond or more. The truth there follows the pace of the
    calls by up to +50%, so a benchmark that paces its calls to a guess can pass: docs/THREAT_MODEL.md says so."""
    u = torch.rand(3, generator=torch.Generator().manual_seed(seed)).tolist()
    if cuda:
        return [0.001 * 12 ** v for v in u]
    return [4 * (0.0015 + 0.0015 * u[0]), 4 * (0.005 + 0.003 * u[1])]


def _durations(ctx: GradeContext) -> list[float]:
    """Drawn from the operating system's randomness at every grading, not from the secret: without an
    instructor's secret (self-study, a plain CLI grading) the secret is public, and a benchmark that computed
    the durations from it instead of measuring them passed (a red team's public_secret)."""
    return durations(random.SystemRandom().getrandbits(63), ctx.cuda)


def _round_trip_s() -> float:
    """What one call's two messages cost on this machine now: the median of seven round trips through a socket pair
    to a thread of the judge's own. Not a ping of the worker: the submission answers those, and a red team's
    answered each in a second, so that a benchmark returning 1.0 without ever calling the workload matched."""
    ours, theirs = socket.socketpair()

    def echo():
        while data := theirs.recv(64):
            theirs.sendall(data)
    thread = threading.Thread(target=echo, daemon=True)
    thread.start()
    times = []
    try:
        for _ in range(7):
            t0 = _perf_counter()
            ours.sendall(b"x")
            ours.recv(64)
            times.append(_perf_counter() - t0)
    finally:
        ours.close()
        thread.join(1)
        theirs.close()
    return sorted(times)[3]


def _hold(until: float) -> None:
    """Wait until the judge's clock reads ``until``: sleep most of it, spin the last half millisecond."""
    while (left := until - _perf_counter()) > 0:
        time.sleep(left - 0.0005) if left > 0.001 else None


class Pacer:
    """The judge's side of a paced workload on a GPU: a thread that watches the workload's page of shared host
    memory, notes when the GPU reaches each call (the stream writes the call's number there) and lets it go on
    ``seconds`` later (it writes the number back), the first call ``first_call_extra_s`` later still. How long a call
    lasts is decided here, while it runs: nothing in the submission's process can know it before it has run."""

    POLL_S = 20e-6

    def __init__(self, page: torch.Tensor, seconds: float, first_call_extra_s: float):
        self.flags = page.numpy()  # the judge's own mapping of the page
        self.seconds, self.extra = seconds, first_call_extra_s
        self.arrivals: list[float] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="autograder-pacer", daemon=True)

    def __enter__(self) -> Pacer:
        self.flags[PROGRESS] = self.flags[RELEASE] = 0
        self.thread.start()
        return self

    def _run(self) -> None:
        released = 0
        while not self.stopped.is_set():
            reached = int(self.flags[PROGRESS])
            if reached == released:
                time.sleep(self.POLL_S)
                continue
            now = _perf_counter()
            self.arrivals.append(now)
            _hold(now + self.seconds + (self.extra if len(self.arrivals) == 1 else 0.0))
            released = reached
            self.flags[RELEASE] = released

    def settle(self, calls: int) -> None:
        """Go on pacing after the benchmark returned until ``calls`` calls have reached the GPU, or none has for
        a while: a benchmark that never synchronizes returns with its calls still queued, and what they take is
        the truth its figure is compared with (it timed their launches)."""
        quiet = 3 * (self.seconds + self.extra) + 0.05
        last, seen = _perf_counter(), len(self.arrivals)
        while len(self.arrivals) < calls and _perf_counter() - last < quiet:
            time.sleep(0.001)
            if len(self.arrivals) != seen:
                last, seen = _perf_counter(), len(self.arrivals)

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.flags[RELEASE] = RELEASE_ALL  # whatever is still queued runs through: the GPU is not left waiting


def _timed_benchmark(ctx: GradeContext, seconds: float, first_call_extra_s: float = 0.0) -> tuple[float, Truth, float]:
    """(what the learner's benchmark returned, the true seconds per call, benchmark's wall time): the workload's
    calls wait on the judge, so both the truth and the slow first call are the judge's own doing."""
    arrivals: list[float] = []  # when each call reached the judge (CPU) or the GPU got to it (GPU)
    if ctx.cuda:
        page, flags = ctx.host_page(1024, torch.int32)
        workload = ctx.call(Fn(f"{WORKLOAD}:paced_workload"), flags, str(ctx.device), what="building the workload")
        pacer = Pacer(page.view(flags), seconds, first_call_extra_s)
        truth = Truth.exact(seconds)
    else:
        pacer = None
        truth = Truth.exact(seconds + _round_trip_s())

        def wait(event):
            arrivals.append(_perf_counter())
            time.sleep(seconds + (first_call_extra_s if len(arrivals) == 1 else 0.0))
            return {}
        ctx.session.on_event = wait
        workload = ctx.call(Fn(f"{WORKLOAD}:paced_workload"), what="building the workload")
    try:
        with pacer if pacer is not None else nullcontext():
            start = _perf_counter()
            got = ctx.call(Fn(f"{WORKLOAD}:run_benchmark"), Entry("benchmark"), workload.ref, what="benchmark(fn)",
                           keep=False, timeout=first_call_extra_s + 60)
            wall = _perf_counter() - start
            if pacer is not None:
                pacer.settle(MIN_CALLS + 4)
    finally:
        ctx.session.on_event = None
    if pacer is not None:
        arrivals = pacer.arrivals
    if len(arrivals) < MIN_CALLS:
        raise CheckFailed(f"benchmark(fn) called the workload {len(arrivals)} time(s) (the grader sees every call "
                          f"reach {'the GPU' if ctx.cuda else 'it'}); a benchmark times many calls",
                          "call fn in a loop: warm-up calls first, then timed repeats")
    truth = _paced_truth(truth, seconds, arrivals)
    value = got.value.get("value") if isinstance(got.value, dict) else None
    if not isinstance(value, float) or not value > 0 or value != value or value == float("inf"):
        raise CheckFailed(f"benchmark(fn) must return the seconds per call as a positive float, got {value!r}")
    return value, truth, wall


def _paced_truth(truth: Truth, seconds: float, arrivals: list[float]) -> Truth:
    """The true seconds per call, from the pace at which the calls reached the grader (CPU) or the GPU got to them
    (GPU) while the learner's benchmark ran: the judge's own wait plus what it did not decide (a round trip, which a
    loaded machine slows after the grader measured one; on a GPU the stream's few microseconds to see a release, and
    a benchmark's own synchronize between calls). Low: the gap of the fastest tenth of the calls, the pace of the
    machine's quietest moments (a benchmark's median of repeats picks them: the reference, on a CI machine whose load
    came and went, returned 7.89 ms where the median gap was 10.09 ms); high: the gaps' mean, leaving out the slow
    first call and stalls over 3x the median. The pace may raise the truth by half at most, so a benchmark that
    spaces its calls out and times the gaps is still wrong, and never lowers it below the grader's own wait."""
    gaps = sorted(b - a for a, b in zip(arrivals, arrivals[1:]))
    if len(gaps) < 5:
        return truth
    median = gaps[len(gaps) // 2]
    usual = [g for g in gaps if g <= 3 * median]
    cap = 1.5 * truth.high

    def bound(value: float) -> float:
        return min(max(value, seconds), cap)
    low, high = sorted((bound(gaps[len(gaps) // 10]), bound(sum(usual) / len(usual))))
    return Truth(low, high)


def _judge(got: float, truth: Truth, what: str, no_sync_hint: bool) -> str:
    ratio = truth.ratio(got)
    if 0.8 <= ratio <= 1.25:
        return f"{what}: {got * 1e3:.2f} ms per call (the grader measured {truth})"
    if ratio > 100:
        hint = "return seconds, not milliseconds or nanoseconds"
    elif ratio < 0.8 and no_sync_hint:
        hint = ("without torch.cuda.synchronize() before reading the clock you time the kernel *launch*, "
                "not the work: CUDA runs asynchronously")
    elif ratio > 1.25:
        hint = ("warm up before timing: the first call(s) include compiling (and CUDA-graph recording); "
                "time only later calls, and take a median over several repeats")
    else:
        hint = "time many calls and divide by their number; take the median of several repeats"
    raise CheckFailed(f"{what}: benchmark returned {got * 1e3:.3f} ms per call, but the workload takes "
                      f"{truth} (ratio {ratio:.2f}; 0.8..1.25 passes)", hint)


def check_known_durations(ctx: GradeContext):
    lines = []
    for seconds in _durations(ctx):
        got, truth, _ = _timed_benchmark(ctx, seconds)
        lines.append(_judge(got, truth, f"{seconds * 1e3:.1f} ms workload", ctx.cuda))
    return "; ".join(lines)


def check_excludes_compile(ctx: GradeContext):
    seconds = _durations(ctx)[0]
    got, truth, wall = _timed_benchmark(ctx, seconds, FIRST_CALL_EXTRA_S)
    if wall > FIRST_CALL_EXTRA_S + BENCHMARK_BUDGET_S:
        raise CheckFailed(f"benchmark(fn) took {wall:.1f} s for a {seconds * 1e3:.1f} ms workload whose first call "
                          f"takes {FIRST_CALL_EXTRA_S:g} s more; keep it under {BENCHMARK_BUDGET_S:g} s beyond that "
                          "slow call", "size the loop from a time budget (e.g. about 0.2 s of calls per repeat, "
                          "counted from one timed call), not a fixed count, and add up the whole run: your warm-up, any "
                          "sizing runs (timeit's autorange can settle on up to 0.5 s per repeat) and every repeat "
                          "must fit. A long loop only hides a slow first call, it does not leave it out")
    return _judge(got, truth, f"{seconds * 1e3:.1f} ms workload whose first call takes {FIRST_CALL_EXTRA_S:g} s "
                  f"more (like a compile); benchmark took {wall:.1f} s", ctx.cuda)


# ---- (b) fast_gelu_bias ----

def _inputs(gen: torch.Generator, shape, device, layers: int = LAYERS) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randn(shape, generator=gen, device=device)
    bias = torch.randn(layers, shape[-1], generator=gen, device=device)
    return x, bias


def trial_shapes(ctx: GradeContext) -> list[tuple[tuple, int]]:
    """The six trials' (shape, layers): the timing shape twice and four shapes the student never saw, one 3-D,
    each with its own number of layers (1 to 6)."""
    gen = torch.Generator().manual_seed(ctx.seed("shapes"))
    shapes = [(SIZES[ctx.size], LAYERS)] * 2
    for i in range(4):
        rows, cols = (int(v) for v in torch.randint(1, 700, (2,), generator=gen))
        layers = int(torch.randint(1, 7, (), generator=gen))
        shapes.append(((rows, cols) if i < 3 else (2, rows, cols), layers))
    return shapes


def correctness_cases(ctx: GradeContext) -> list[tuple[str, tuple]]:
    """Six trials (trial_shapes), fresh values each."""
    return [(f"input of shape {s} with {n} layer(s)", _inputs(ctx.generator("correctness", i), s, ctx.device, n))
            for i, (s, n) in enumerate(trial_shapes(ctx))]


# What the probes after the six trials hold, each drawn from the secret. Guards (checked_gelu_bias raises): a NaN in
# x; an infinite bias (either sign) in a layer that is not the last; finite inputs that overflow at a later layer
# (2e38 carried through GELU unchanged, then 2e38 more); finite inputs that overflow to -inf at the first layer
# (GELU(-inf) is NaN); a NaN in a bias row, at the shape and layer count of one of the trials the student never saw
# (a check of the timing shape only, or of infinities only, is not the check); an overflow in the last of six layers
# at the timing shape (a check of the first four layers, or of all but the last, is not the check); a NaN in a float16
# x (x may be any float dtype: a check of float32 inputs only is not the check). Finite extremes
# (it returns, and so must the submission): a row of 1e38s, whose sum overflows (a check of the sum is not the
# check); a bias that cancels a 3e38 input (a bound on |x| + |bias| is not the check); -1e14, whose cube overflows
# inside the layer while the layer's output is -0 (the guard reads the output); a column of 1e38s (a check of column
# sums is not the check); 3e38 carried through every layer (a threshold below float32's largest value is not the
# check).
GUARDS = ("a NaN in x", "an infinite bias in a layer before the last", "finite values that overflow in a later layer",
          "finite values that overflow to -inf in the first layer", "a NaN in a bias row, at a trial's shape",
          "finite values that overflow in the last of 6 layers", "a NaN in x, in float16")
EXTREMES = ("a row of 1e38s (their sum overflows; no activation does)", "a 3e38 input cancelled by its bias",
            "-1e14 in x (its cube overflows inside the layer; the layer's output is -0)",
            "a column of 1e38s (its sum overflows; no activation does)",
            "3e38 carried through every layer (no activation overflows)")


def _probe(gen: torch.Generator, i: int, ctx: GradeContext, kind: str) -> tuple[str, tuple, bool]:
    # The timing shape and layer count, which the first two trials compiled, or a trial's own shape and layer count:
    # a probe costs no compile of its own (a static compile per shape, fullgraph=True, met its recompile limit on
    # probes of new shapes), but for the six-layer and the float16 ones (a compile more each, within the limit).
    shape, layers = SIZES[ctx.size], LAYERS
    if kind == GUARDS[4]:
        shape, layers = trial_shapes(ctx)[2 + int(torch.randint(4, (), generator=gen))]
    elif kind == GUARDS[5]:
        layers = 6
    x, bias = _inputs(ctx.generator("probe", i, device="cpu"), shape, "cpu", layers)
    if kind == GUARDS[6]:
        x, bias = x.half(), bias.half()
    _poison(gen, x, bias, kind, layers)
    return f"probe {i + 1}: {kind}", (x.to(ctx.device), bias.to(ctx.device)), kind in GUARDS


# The guards a timed call can hold: the timing shape, dtype and layer count (a timed call's form, no recompile).
TIMED_GUARDS = GUARDS[:4]


def timed_guard(gen: torch.Generator, args) -> tuple[tuple, str]:
    """A timed call's (x, bias) made into one on which checked_gelu_bias raises (speed.Timed.guard): one of
    TIMED_GUARDS, at a random place (``gen``: the judge's, from the OS's randomness)."""
    x, bias = args
    cpu = torch.Generator().manual_seed(int(torch.randint(2**62, (), generator=gen, device=gen.device)))
    kind = TIMED_GUARDS[int(torch.randint(len(TIMED_GUARDS), (), generator=cpu))]
    _poison(cpu, x, bias, kind, bias.shape[0])
    return (x, bias), kind


def _poison(gen: torch.Generator, x: torch.Tensor, bias: torch.Tensor, kind: str, layers: int) -> None:
    """Writes a probe's ``kind`` into x and bias (in place), at places drawn from ``gen`` (a CPU generator)."""
    rows, cols = x.shape[-2:]
    r, c = int(torch.randint(rows, (), generator=gen)), int(torch.randint(cols, (), generator=gen))
    k = int(torch.randint(1, max(layers, 2), (), generator=gen))  # a later layer (1..layers-1)
    if kind == GUARDS[4]:
        bias[int(torch.randint(layers, (), generator=gen)), c] = float("nan")
    elif kind == GUARDS[5]:
        x[r, c], bias[:, c] = 2e38, 0.0
        bias[layers - 1, c] = 2e38
    elif kind == EXTREMES[3]:
        x[:, c] = 1e38
    elif kind == EXTREMES[4]:
        x[r, c], bias[:, c] = 3e38, 0.0
    elif kind in (GUARDS[0], GUARDS[6]):
        x[r, c] = float("nan")
    elif kind == GUARDS[1]:
        bias[k - 1, c] = float("inf") if int(torch.randint(2, (), generator=gen)) else float("-inf")
    elif kind == GUARDS[2]:
        x[r, c], bias[:k, c], bias[k, c] = 2e38, 0.0, 2e38
    elif kind == GUARDS[3]:
        x[r, c], bias[0, c] = -3e38, -3e38
    elif kind == EXTREMES[0]:
        x[r, :] = 1e38
    elif kind == EXTREMES[1]:
        x[r, c], bias[0, c] = 3e38, -3e38
    elif kind == EXTREMES[2]:
        x[r, c] = -1e14


def probe_cases(ctx: GradeContext) -> list[tuple[str, tuple, bool]]:
    """The probes after the six trials, (label, (x, bias), whether checked_gelu_bias raises), in an order drawn from
    the secret: five to seven guards (always a later layer's overflow, an infinite bias before the last layer, a NaN
    in a bias at a trial's shape, an overflow in the last of six layers and a NaN in a float16 x) and the five
    finite extremes, with one
    plain input among them or not. A function that raises by call count, by the inputs alone, by a sum or a bound,
    checks only some layers, only the timing shape, only float32 or only infinities, is wrong on one of them (the red teams'
    lesser checks: tests/test_exercises.py)."""
    gen = torch.Generator().manual_seed(ctx.seed("probes"))
    extra = [GUARDS[int(torch.randint(4, (), generator=gen))] for _ in range(int(torch.randint(3, (), generator=gen)))]
    kinds = [GUARDS[2], GUARDS[1], GUARDS[4], GUARDS[5], GUARDS[6], *extra, *EXTREMES] + (
        ["plain"] if int(torch.randint(2, (), generator=gen)) else [])
    order = torch.randperm(len(kinds), generator=gen).tolist()
    return [_probe(gen, i, ctx, kinds[j]) for i, j in enumerate(order)]


_GUARD_HINT = ("keep the check: checked_gelu_bias raises FloatingPointError when any layer's activations are not "
               "finite, and only then; compute that verdict as a tensor inside your compiled code and read it once per "
               "call")


def _raised_floating_point_error(err: RemoteError) -> bool:
    """The exception itself is Python's FloatingPointError or a subclass (by its classes' qualified names, as the
    worker reports them): a cause further down, or another class of that name, is not what a caller catches."""
    return "builtins.FloatingPointError" in err.mro


def check_probes(ctx: GradeContext) -> int:
    """Each probe: the judge's own eager chain decides whether it raises; where it raises, the submission must raise
    FloatingPointError; where it returns, the submission must return its result (compared like the trials)."""
    probes = probe_cases(ctx)
    for label, args, raises in probes:
        try:
            checked_gelu_bias(*[a.clone() for a in args])
            eager_raised = False
        except FloatingPointError:
            eager_raised = True
        if eager_raised != raises:  # the grader's own inputs are wrong: never the learner's fault
            raise AssertionError(f"checked_gelu_bias {'did not raise' if raises else 'raised'} on {label}")
        if not raises:
            ctx.trials(Entry("fast_gelu_bias"), checked_gelu_bias, [(label, args)], TOL, "fast_gelu_bias")
            continue
        mark = len(ctx.pools)
        slots = ctx.put(list(args))
        try:
            out = ctx.session.invoke(Entry("fast_gelu_bias"), *slots, no_grad=True, device=ctx.device, keep=False)
        except RemoteError as err:
            if err.not_implemented:
                raise CheckFailed("fast_gelu_bias is not written yet (it raises NotImplementedError)",
                                  "replace `raise NotImplementedError()` with your code") from None
            if not _raised_floating_point_error(err):
                lookalike = (f" (a class of that name that is not Python's FloatingPointError: "
                             f"{', '.join(err.mro[:2]) or 'its classes unknown'})" if err.type == "FloatingPointError"
                             else "")
                raise CheckFailed(f"on {label}, where checked_gelu_bias raises FloatingPointError, fast_gelu_bias "
                                  f"raised {err.describe()}{lookalike}", _GUARD_HINT) from None
            continue
        finally:
            ctx.drop_pools(mark)
        got = out.value.get("type", "?") if isinstance(out.value, dict) else "?"
        raise CheckFailed(f"on {label}, where checked_gelu_bias raises FloatingPointError (its activations are not "
                          f"finite), fast_gelu_bias returned ({got}) instead: the check was dropped or checks less",
                          _GUARD_HINT)
    return len(probes)


def check_fast_correct(ctx: GradeContext):
    ctx.session.reset()  # the hidden stream's shapes must not pile up on the visible one's graphs
    n = ctx.trials(Entry("fast_gelu_bias"), checked_gelu_bias, correctness_cases(ctx), TOL, "fast_gelu_bias")
    probes = probe_cases(ctx)
    check_probes(ctx)
    raised = sum(raises for _, _, raises in probes)
    return (f"matches the eager chain on {n} inputs (rtol={TOL.rtol:g}, atol={TOL.atol:g}), then on {len(probes)} "
            f"probes in an order of the secret's: raises FloatingPointError on the {raised} where it raises and "
            f"returns its result on the {len(probes) - raised} with extreme finite values where it does not")


def check_fast_speed(ctx: GradeContext):
    # Compiled afresh for the timed shape: after the correctness trials' odd shapes, Dynamo would serve it with
    # their dynamic-shape graph, whose kernels max-autotune tuned for a small shape (1.18x instead of 3.9x seen).
    ctx.session.reset()
    shape = SIZES[ctx.size]
    numel = shape[0] * shape[1]
    timed = Timed(args=lambda gen, i: _inputs(gen, shape, ctx.device), tol=TOL,
                  # read x and the biases, write the output, copy it out (read + write): the fewest bytes per call
                  bytes_per_call=(4 * numel + LAYERS * shape[1]) * 4,
                  # each call's input is its own 128 MB at GPU size: short blocks keep the pools in memory
                  min_block_s=MIN_BLOCK_S,
                  # untimed blocks like the timed ones hide a call that must raise: the check runs in every call
                  guard=timed_guard)
    return speed_check(ctx, checked_gelu_bias, Entry("fast_gelu_bias"), timed, name="fast_gelu_bias")


EXERCISE = Exercise(
    id=ID,
    title="Eager mode and your first compile",
    entry_points=("benchmark", "fast_gelu_bias"),
    baseline="the eager checked_gelu_bias",
    speed_gate=1.5,
    checks=(
        Check("benchmark_known_durations", "benchmark() measures workloads of unknown duration", 3,
              check_known_durations, ("benchmark",), decided_by=(
                  clock("each workload's duration, decided by the grader while its calls run (it releases each "
                        "call as the GPU reaches it; on a CPU it answers each call), and the pace at which it saw "
                        "the calls arrive, on its own clock", "event"),
                  answer("the seconds per call benchmark() returned", _RUN))),
        Check("benchmark_excludes_compile", "benchmark() leaves the first (compiling) call out", 2,
              check_excludes_compile, ("benchmark",), decided_by=(
                  clock("a workload whose first call the grader itself holds back 1 s, paced on its own clock",
                        "event"),
                  answer("the seconds per call benchmark() returned", _RUN),
                  clock("benchmark()'s whole run, within 3 s beyond the slow call", _RUN))),
        Check("fast_gelu_bias_correct", "fast_gelu_bias matches the eager chain and raises where it raises", 3,
              check_fast_correct, ("fast_gelu_bias",), hidden=True, decided_by=(_OUTPUTS, _RAISES)),
        Check("fast_gelu_bias_speed", "fast_gelu_bias is at least 1.5x faster than eager", 4,
              check_fast_speed, ("fast_gelu_bias",), kind="speed", decided_by=SPEED_FACTS + (
                  answer("in untimed blocks like the timed ones, one call at a random position holds an input on "
                         "which the eager chain raises: it must raise there, the outputs before it written and "
                         "right and none after, read from the grader's memory", "block"),),
              diagnose=speed_diagnosis, diagnostics=SPEED_DIAGNOSTICS),
    ),
    hints={
        "benchmark_known_durations": [
            "Time many calls in a loop and divide by the number of calls.",
            "On a GPU, call torch.cuda.synchronize() before starting and before stopping the clock.",
            "Repeat the timed loop several times and return the median.",
        ],
        "benchmark_excludes_compile": [
            "The first call of a compiled function compiles it; a benchmark must not count it.",
            "Call fn a few times before you start the clock (warm-up).",
        ],
        "fast_gelu_bias_correct": [
            "fast_gelu_bias must compute exactly what checked_gelu_bias computes, in the same dtype, for any number "
            "of layers (bias has one row per layer).",
            "Where checked_gelu_bias raises FloatingPointError (a NaN, an infinity, an overflow in any layer), "
            "fast_gelu_bias must raise it too: the check is part of the function, not a debugging leftover you may "
            "delete.",
            "Checking only the inputs, or only the first layer, is not the same check: finite inputs can overflow, "
            "and a later layer's bias can be infinite.",
        ],
        "fast_gelu_bias_speed": [
            "Measure before you change anything: time torch.compile(checked_gelu_bias) against the eager function "
            "(warm up, synchronize, median of blocks). Is it faster?",
            "Count what one call runs, eager and compiled, as lesson 1 did with the profiler. If the compiled "
            "version launches as many kernels as eager, torch.compile fused nothing: what in the function could "
            "stop it? (Lesson 1's checklist, item 5.)",
            "`if not torch.isfinite(h).all():` needs the value on the host: the GPU must finish, the value is "
            "copied back, and Python decides. A Python decision on a tensor's value cannot be part of a compiled "
            "graph; inside a loop, torch.compile gives up on the whole function (try fullgraph=True to see where).",
            "The caller needs one answer per call: did any layer go wrong? Could that answer stay a tensor "
            "while the layers run, and be read on the host once, after the compiled code has queued all the "
            "work?",
        ],
    },
)
