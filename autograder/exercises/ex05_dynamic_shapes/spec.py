"""Exercise 05: dynamic shapes and recompilation.

``make_server(model) -> handle(x) -> y``: serve a stream of requests of varying length with a
``autograder.models.ServingEncoder`` (full size: d=512, 8 heads, 2 blocks, lengths 16..256, one request of
shape (1, T, 512) float32 at a time, under ``torch.no_grad()``). The model counts requests in a Python int,
``model.requests``, which must still count every request served. The grader sends a warm-up stream, then a
stream of lengths it never sent before:

- few_graphs: from ``make_server`` to the end of both streams at most ``MAX_GRAPHS`` graphs are compiled, the
  unseen stream runs under ``torch.compiler.set_stance("fail_on_recompile")`` without a recompile, and
  ``model.requests`` counts every request;
- outputs_match: ``handle(x)`` matches the eager model for every length it is given, the shortest and the
  longest included (padding that is not masked changes every output: the attention is bidirectional);
- speed: over the unseen stream, after the warm-up stream, at least 1.5x faster than the eager model, timed
  under ``fail_on_recompile``.
"""

from __future__ import annotations

from contextlib import contextmanager

import torch

from autograder.correctness import Case, CheckFailed, Tolerance, generator, run_trials, seed_for
from autograder.exercises.spec import Check, Exercise, WrongApproach
from autograder.models import make_encoder
from autograder.structure import capture_compile_events
from autograder.timing import _perf_counter, synchronize

ID = "05_dynamic_shapes"
CONFIGS = {  # (d, heads, layers, min_len, max_len, warm-up requests, unseen lengths)
    "smoke": (32, 4, 2, 4, 32, 12, 8),
    "full": (512, 8, 2, 16, 256, 24, 16),
}
# Naive compiles hit the recompile limit (8) and stop there; four or five length buckets, or one dynamic
# graph (automatic dynamic makes 2), fit with room to spare.
MAX_GRAPHS = 6
# make_server plus the warm-up stream. Measured on an H200 with cold caches: buckets under reduce-overhead
# 8 s, automatic dynamic 1 s; compiling every length separately does not fit.
COMPILE_BUDGET_S = 120.0
# Where the graph count is not what is graded, a server is still stopped before it compiles without end:
# past the recompile limit (8) with room to spare.
RUNAWAY_GRAPHS = 16
# fp32, fused reductions and padded (masked) keys: 1e-6 absolute from eager on outputs of size ~1 (H200);
# padding that is not masked is off by 0.02..1.
TOL = Tolerance(rtol=1e-4, atol=1e-4)


class GraphBudgetExceeded(Exception):
    """Raised from Dynamo's compile-start callback: a submission that compiles graph after graph is stopped."""


def _model(ctx):
    d, heads, layers, _, max_len, _, _ = CONFIGS[ctx.size]
    return make_encoder(d, heads, layers, max_len, ctx.device, seed=seed_for(ID, "weights", 0, ctx.secret) % 2**31)


def _x(ctx, purpose: str, index: int, length: int) -> torch.Tensor:
    d = CONFIGS[ctx.size][0]
    return torch.randn(1, length, d, generator=generator(ID, purpose, index, ctx.secret, ctx.device),
                       device=ctx.device)


def stream_lengths(ctx) -> tuple[list[int], list[int]]:
    """The warm-up stream's lengths and the unseen lengths, both from the grading secret (an instructor's
    secret makes them unpredictable). Traffic shifts, as it does in serving: the warm-up stream has only
    short requests (up to half of max_len, repeats allowed); the unseen lengths are distinct, none of them in
    the warm-up stream, half short and half long."""
    _, _, _, lo, hi, n_warm, n_unseen = CONFIGS[ctx.size]
    mid = hi // 2
    gen = torch.Generator().manual_seed(seed_for(ID, "lengths", 0, ctx.secret))
    warm = [int(t) for t in torch.randint(lo, mid + 1, (n_warm,), generator=gen)]
    short = [t for t in torch.randperm(mid - lo + 1, generator=gen).add(lo).tolist() if t not in warm]
    long = torch.randperm(hi - mid, generator=gen).add(mid + 1).tolist()
    n_short = min(n_unseen // 2, len(short))
    return warm, short[:n_short] + long[:n_unseen - n_short]


@contextmanager
def graph_budget(limit: int):
    """A fresh Dynamo (``torch._dynamo.reset()``: each check compiles on its own) that stops a submission at
    its ``limit + 1``-th graph (Dynamo's compile-start callback raises), so one that compiles every length
    fails in seconds, not after minutes of compiling. Where the callback API is missing (older torch),
    graphs are only counted afterwards."""
    torch._dynamo.reset()  # before registering: reset() clears Dynamo's callbacks
    try:
        from torch._dynamo.callback import callback_handler
    except ImportError:
        yield
        return
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
    try:
        yield
    finally:
        if on_start in callback_handler.start_callbacks:  # a reset() inside the block already removed it
            callback_handler.remove_start_callback(on_start)


def _budget_hit(err: BaseException) -> bool:
    while err is not None:
        if isinstance(err, GraphBudgetExceeded):
            return True
        err = err.__cause__ or err.__context__
    return False


def _too_many_graphs(where: str, limit: int = MAX_GRAPHS) -> CheckFailed:
    return CheckFailed(f"more than {limit} graphs were compiled, each new one a recompile ({where}; the "
                       "grader stopped the compile)",
                       "one graph per length never ends: pad to a few bucket lengths, or let one dynamic graph "
                       "serve every length")


def _make_server(ns, model, limit: int = MAX_GRAPHS):
    try:
        handle = ns["make_server"](model)
    except NotImplementedError:
        raise CheckFailed("make_server is not written yet (it raises NotImplementedError)",
                          "replace `raise NotImplementedError()` with your code") from None
    except Exception as err:
        if _budget_hit(err):
            raise _too_many_graphs("while make_server ran", limit) from None
        raise CheckFailed(f"make_server(model) raised {type(err).__name__}: {str(err).splitlines()[0]}") from err
    if not callable(handle):
        raise CheckFailed(f"make_server must return a function handle(x), got {type(handle).__name__}")
    return handle


def _serve(handle, x, what: str, limit: int = MAX_GRAPHS):
    try:
        return handle(x)
    except CheckFailed:
        raise
    except Exception as err:
        raise _failure(err, what, limit) from None


def _failure(err: Exception, what: str, limit: int = MAX_GRAPHS) -> CheckFailed:
    """What a server's exception means: too many graphs, a recompile under fail_on_recompile, or a crash."""
    if _budget_hit(err):
        return _too_many_graphs(f"at {what}", limit)
    text = str(err).strip()
    first = text.splitlines()[0] if text else ""
    if "fail_on_recompile" in text or "Detected recompile" in text:
        return CheckFailed(f"{what} recompiled, under torch.compiler.set_stance('fail_on_recompile'): {first}",
                           _RECOMPILE_HINT)
    return CheckFailed(f"handle raised {type(err).__name__} at {what}: {first}")


_RECOMPILE_HINT = ("every length a request can have must be ready before the stream starts: warm up each "
                   "bucket inside make_server (under torch.no_grad(), as the stream runs), or use one dynamic "
                   "graph; TORCH_LOGS='recompiles' names the guard that failed")


def _requests(model) -> int | None:
    value = model.requests
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return int(value)
    return value if isinstance(value, int) else None


def check_few_graphs(ns, ctx):
    model = _model(ctx)
    warm, unseen = stream_lengths(ctx)
    warm_x = [_x(ctx, "warm-up", i, t) for i, t in enumerate(warm)]
    unseen_x = [_x(ctx, "unseen", i, t) for i, t in enumerate(unseen)]
    with torch.no_grad(), capture_compile_events() as events, graph_budget(MAX_GRAPHS):
        try:
            start = _perf_counter()
            handle = _make_server(ns, model)
            made = model.requests
            for i, x in enumerate(warm_x):
                _serve(handle, x, f"warm-up request {i + 1} (length {x.shape[1]})")
            synchronize(ctx.device)
            seconds = _perf_counter() - start
            with torch.compiler.set_stance("fail_on_recompile"):
                for i, x in enumerate(unseen_x):
                    _serve(handle, x, f"unseen request {i + 1} (length {x.shape[1]}, never sent before)")
        except CheckFailed as err:  # name the guard that failed: the learner's way in
            recompiles = events.snapshot().recompiles
            if not recompiles or "graphs were compiled" not in err.reason:
                raise
            last = recompiles[-1]
            raise CheckFailed(f"{err.reason}; the last recompile of {last.function} ({last.where}) was "
                              f"caused by the guard {(last.guards or ['?'])[0]}", err.hint) from None
        events = events.snapshot()
    if events.graphs > MAX_GRAPHS:
        reasons = "; ".join(str(r) for r in events.recompiles[:2])
        raise CheckFailed(f"{events.graphs} graphs were compiled over the stream, more than {MAX_GRAPHS}"
                          + (f": {reasons}" if reasons else ""), _RECOMPILE_HINT)
    if seconds > COMPILE_BUDGET_S:
        raise CheckFailed(f"make_server and the warm-up stream took {seconds:.0f} s, over the compile budget of "
                          f"{COMPILE_BUDGET_S:g} s", "a few buckets compile in seconds; every length does not")
    served, counted = len(warm_x) + len(unseen_x), _requests(model)
    if counted is None or counted - (made if isinstance(made, int) else 0) != served:
        raise CheckFailed(f"model.requests is {model.requests!r} after {served} requests (it was {made!r} when "
                          f"make_server returned): the monitoring no longer counts requests",
                          "keep counting, outside the compiled code: model.requests += 1 in handle")
    return (f"{events.graphs} graph(s) for {len(warm)} warm-up requests and {len(unseen)} unseen lengths; no "
            f"recompile under fail_on_recompile; make_server and warm-up {seconds:.1f} s; model.requests counts "
            f"all {served}", {"events": events.summary(), "first_call_s": seconds})


def correctness_cases(ctx) -> list[Case]:
    """The shortest and the longest length, then lengths from the secret: every bucket a server may use."""
    _, _, _, lo, hi, _, _ = CONFIGS[ctx.size]
    gen = torch.Generator().manual_seed(seed_for(ID, "correctness-lengths", 0, ctx.secret))
    lengths = [lo, hi] + [int(t) for t in torch.randint(lo, hi + 1, (6,), generator=gen)]
    return [Case(f"a request of length {t}", (_x(ctx, "correctness", i, t),)) for i, t in enumerate(lengths)]


def check_outputs_match(ns, ctx):
    model, reference = _model(ctx), _model(ctx)
    with torch.no_grad(), graph_budget(RUNAWAY_GRAPHS):
        handle = _make_server(ns, model, RUNAWAY_GRAPHS)
        try:
            n, _ = run_trials(handle, reference, correctness_cases(ctx), TOL, "handle")
        except CheckFailed as err:
            if _budget_hit(err.__cause__):
                raise _too_many_graphs("while the lengths were checked", RUNAWAY_GRAPHS) from None
            raise
    return (f"matches the eager model on {n} lengths, the shortest and longest included "
            f"(rtol={TOL.rtol:g}, atol={TOL.atol:g})")


def check_speed(ns, ctx):
    from autograder.grader import Inconclusive, NeedsGPU
    from autograder.speed import speed_check

    model, baseline, reference = _model(ctx), _model(ctx), _model(ctx)
    warm, unseen = stream_lengths(ctx)
    inputs = [(_x(ctx, "speed", i, t),) for i, t in enumerate(unseen)]
    with torch.no_grad(), graph_budget(RUNAWAY_GRAPHS):
        before = ctx.events.snapshot()
        handle = _make_server(ns, model, RUNAWAY_GRAPHS)
        ctx.gate()  # on a CPU: "needs a CUDA GPU" now, before the stream (an unwritten server failed above)
        for i, t in enumerate(warm):
            _serve(handle, _x(ctx, "warm-up", i, t), f"warm-up request {i + 1} (length {t})", RUNAWAY_GRAPHS)
        try:
            return speed_check(ctx, baseline, handle, inputs, tol=TOL, reference=reference, name="handle",
                               timed_region=lambda: torch.compiler.set_stance("fail_on_recompile"))
        except CheckFailed as err:  # the speed check saw the timed region; the recompiles came before it
            now = ctx.events.snapshot()
            recompiles = now.recompiles[len(before.recompiles):]
            graphs = f"{now.graphs - before.graphs} graph(s) and {len(recompiles)} recompile(s) for this server"
            slow = CheckFailed(f"{err.reason}; {graphs}" + (f": {recompiles[0]}" if recompiles else ""), err.hint)
            slow.details = getattr(err, "details", {})
            raise slow from None
        except (NeedsGPU, Inconclusive):
            raise
        except Exception as err:
            raise _failure(err, "a timed request", RUNAWAY_GRAPHS) from None


EXERCISE = Exercise(
    id=ID,
    title="Dynamic shapes: serve every length without recompiling",
    entry_points=("make_server",),
    baseline="the eager model, one request at a time",
    speed_gate=1.5,
    cpu_gate=None,  # the margin comes from fused kernels and CUDA graphs on a GPU; on a CPU structure decides
    checks=(
        Check("few_graphs", f"at most {MAX_GRAPHS} graphs, no recompile on unseen lengths, requests counted", 3,
              check_few_graphs, ("make_server",), kind="structure", hidden=True),
        Check("outputs_match", "matches the eager model for every length", 3, check_outputs_match,
              ("make_server",), hidden=True),
        Check("speed", "at least 1.5x faster than eager on lengths never seen before", 4, check_speed,
              ("make_server",), kind="speed"),
    ),
    wrong=(
        WrongApproach("naive.py", ("few_graphs",), "recompile", gpu_fails=("speed",)),
        WrongApproach("dynamic_false.py", ("few_graphs",), "recompile", gpu_fails=("speed",)),
        WrongApproach("pad_no_mask.py", ("outputs_match",), "differs"),
        WrongApproach("precompile_lengths.py", ("few_graphs",), "graphs"),
        WrongApproach("lazy_buckets.py", ("few_graphs",), "fail_on_recompile"),
        WrongApproach("counter_dropped.py", ("few_graphs",), "model.requests"),
    ),
    hints={
        "few_graphs": [
            "Run your server over a few lengths with TORCH_LOGS='recompiles' (or torch._logging.set_logs("
            "recompiles=True)): each recompile names the guard that failed.",
            "A Python int attribute that changes every call (self.requests += 1) is a guard: count requests "
            "outside the compiled function and compile model.encode instead.",
            "Each new length is a new shape. Either let one dynamic graph serve them all, or pad every request "
            "to one of a few bucket lengths and compile each bucket once, inside make_server.",
            "The stream runs under torch.no_grad(): warm up under torch.no_grad() too, or grad mode becomes one "
            "more guard that fails.",
        ],
        "outputs_match": [
            "Every position attends to every other one: padded positions change the real ones unless they are "
            "masked out of the softmax.",
            "model.encode(x, key_padding_mask) takes a (1, L) bool mask, True where a position is padding.",
        ],
        "speed": [
            "At these sizes a request takes tens of small kernels: eager time is launch overhead.",
            "Static bucket shapes let mode='reduce-overhead' replay each bucket as one CUDA graph; clone the "
            "slice you return.",
        ],
    },
)
