"""Exercise 05: dynamic shapes.

``make_server(model, traffic) -> handle(x) -> y``: serve a ``ServingEncoder`` (a Python request counter on the
module) one request at a time, every length from min_len to max_len, without recompiling once serving has started.
``traffic`` holds the lengths of 2000 past requests: most are short, about 1 in 1000 over 1000 (workload.TRAFFIC);
the grader also sends max_len itself. The lesson's four equal-width buckets pad most requests to a quarter of
max_len; buckets must go where the traffic is (the learner measures, then chooses: issue 39's transfer):

- few_graphs: over a warm-up stream and then lengths never sent before, no request takes a compile's time on
  the grader's clock (a recompile shows as a latency spike; the submission runs only while a request is
  outstanding), nothing compiles beside the requests either (the CPU the submission's processes use beyond
  serving them, as the operating system counts it), the outputs are right, and make_server with the warm-up fits
  a compile budget. How many graphs
  were compiled (the aim: between 1 and 6) and whether ``model.requests`` counts every request are the
  submission's own word: notes, not graded;
- outputs_match: the eager model's outputs for every length, the shortest and longest included;
- speed: at least 1.5x faster than eager over requests drawn from the traffic (a cycle of 64 lengths, one from
  each 64th of the distribution, so every timed block has the traffic's mix), with no compile on the requests'
  path or beside them.
"""

from __future__ import annotations

import statistics

import torch

from autograder.core.correctness import check_outputs
from autograder.core.grading import GradeContext, RemoteError, WorkerGone
from autograder.core.protocol import Check, CheckFailed, Exercise, Inconclusive, NeedsGPU, Tolerance
from autograder.core.speed import (
    BESIDE_SLACK_S,
    SPEED_DIAGNOSTICS,
    SPEED_FACTS,
    Timed,
    paused,
    serving_cores,
    speed_check,
    speed_diagnosis,
)
from autograder.core.timing import _perf_counter, synchronize
from autograder.core.trust import answer, clock, judge, worker
from autograder.core.wire import Entry, Fn
from autograder.exercises.ex05_dynamic_shapes.workload import (
    CONFIGS,
    HISTORY,
    build_model,
    size_for,
    stratified,
    traffic,
)

ID = "05_dynamic_shapes"
WORKLOAD = "autograder.exercises.ex05_dynamic_shapes.workload"
# Naive compiles hit the recompile limit (8) and stop there; up to six length buckets, or one dynamic
# graph (automatic dynamic makes 2), fit with room to spare. Every check stops a server at its 7th graph (the worker
# raises: it can only fail a submission), the same in every check: a budget that differed between checks told a
# red team's server which check was watching.
MAX_GRAPHS = 6
# loading the submission, make_server and the warm-up stream. Measured on an H200 (d1024; max_len 2048, cold
# caches: six buckets under reduce-overhead 14 s, one dynamic graph 4 s; max_len 8192, graded: the reference's
# 7-9 s); compiling every length separately does not fit. A load alone past it is stopped there (load_budget).
COMPILE_BUDGET_S = 120.0
# fp32, fused reductions and padded (masked) keys: 2e-6 absolute from eager on outputs of size ~1 (H200);
# padding that is not masked is off by 0.02..1.
TOL = Tolerance(rtol=1e-4, atol=1e-4)
# A request this much slower than the server's steady latency, and at least SPIKE_S more, compiled something.
# The factor applies to a steady latency of at most HONEST_FACTOR times the grader's own eager request plus
# HONEST_FLOOR_S (a round trip): a server that makes every request slow (a sleep) cannot raise the threshold
# above its own latency plus SPIKE_S (a red team hid lazy compiles under a 0.3 s sleep per request).
SPIKE_FACTOR, SPIKE_S = 20.0, 0.25
HONEST_FACTOR, HONEST_FLOOR_S = 2.0, 0.005
# A request slower than that is a compile only if the submission's processes (its whole tree, stopped between
# requests) spent at least this much CPU on it. Tracing and code generation are CPU work (a recompile that hit the
# compile cache still traces: 0.39 s of CPU for a 4 s request on a loaded 2-core machine); a request that waited
# for a busy machine's cores is not (a red team's eager server, on a 2-core machine at load 5, took 348 ms for one
# request and was failed as "something compiled"; eager requests there used up to 130 ms of CPU, torch's threads
# spinning). A slow request without it makes the check inconclusive, with no points, unless a later one compiled.
COMPILE_CPU_S = 0.3
# An unseen request is stopped this long past the most it may take without a compile: no honest server comes
# near (an honest server's slowest warm request on an H200: 71 ms; an eager one's on a loaded 2-core CPU: 348 ms).
# A server that paced every request to 6 s walked its 16 unseen requests past a GPU grading's time limit before
# the verdict (constant_latency).
UNSEEN_LIMIT_S = 5.0
CYCLE = 64  # timed requests per cycle of traffic (a timed block holds whole cycles)
_RECOMPILE_HINT = ("every length a request can have must be ready before the stream starts: warm up each "
                   "bucket inside make_server (under torch.no_grad(), as the stream runs), or use one dynamic "
                   "graph; TORCH_LOGS='recompiles' names the guard that failed")


def _size(ctx: GradeContext) -> str:
    """The workload's size on this grading's device (max_len 8192 needs a GPU with the memory for it)."""
    return size_for(ctx.size, ctx.device)


def _seed(ctx: GradeContext) -> int:
    return ctx.seed("weights") % 2**31


def _x(ctx: GradeContext, purpose: str, index: int, length: int) -> torch.Tensor:
    d = CONFIGS[_size(ctx)][0]
    return torch.randn(1, length, d, generator=ctx.generator(purpose, index), device=ctx.device)


def history(ctx: GradeContext) -> list[int]:
    """The past requests' lengths given to make_server: HISTORY draws from the traffic, from the secret."""
    return traffic(_size(ctx), HISTORY, torch.Generator().manual_seed(ctx.seed("history")))


def stream_lengths(ctx: GradeContext) -> tuple[list[int], list[int]]:
    """The warm-up stream's lengths and the unseen lengths, both from the secret. The warm-up stream is traffic
    (repeats allowed); the unseen lengths are distinct and none of them in the warm-up stream: half drawn from the
    traffic's distribution, half longer than any warm-up request (the tail a server must also serve, max_len
    among them)."""
    _, _, _, lo, hi, n_warm, n_unseen = CONFIGS[_size(ctx)]
    gen = torch.Generator().manual_seed(ctx.seed("lengths"))
    warm = traffic(_size(ctx), n_warm, gen)
    short = list(dict.fromkeys(t for t in stratified(_size(ctx), 4 * n_unseen, gen) if t not in warm))
    top = max(warm)
    above = [t + top + 1 for t in torch.randperm(max(hi - top - 1, 0), generator=gen).tolist()]  # top+1..hi-1
    long = ([hi] if hi > top else []) + above
    n_long = min(n_unseen - n_unseen // 2, len(long))
    return warm, short[:n_unseen - n_long] + long[:n_long]


def speed_cycle(ctx: GradeContext) -> list[int]:
    """The timed requests' lengths, cycled: one from each CYCLE-th of the traffic's distribution (secret)."""
    return stratified(_size(ctx), CYCLE, torch.Generator().manual_seed(ctx.seed("speed-lengths")))


def _too_many_graphs(where: str) -> CheckFailed:
    return CheckFailed(f"more than {MAX_GRAPHS} graphs were compiled, each new one a recompile ({where}; the "
                       "grader stopped the compile)",
                       "one graph per length never ends: pad to a few bucket lengths, or let one dynamic graph "
                       "serve every length")


def _failure(err: RemoteError, what: str, who: str = "handle") -> CheckFailed:
    """What a server's exception means: too many graphs, a recompile under fail_on_recompile, a return value that
    cannot be an output, or a crash (of ``who``: handle, or make_server)."""
    if "GraphBudgetExceeded" in err.chain:
        return _too_many_graphs(f"at {what}")
    if "fail_on_recompile" in err.message or "Detected recompile" in err.message:
        return CheckFailed(f"{what} recompiled, under torch.compiler.set_stance('fail_on_recompile'): "
                           f"{err.first_line()}", _RECOMPILE_HINT)
    if err.not_implemented:
        return CheckFailed("make_server is not written yet (it raises NotImplementedError)",
                           "replace `raise NotImplementedError()` with your code")
    if err.type == "OutputError":
        return CheckFailed(f"{who} {err.message} at {what}", "return one tensor of the request's shape, float32")
    return CheckFailed(f"{who} raised {err.describe()}" + (f" at {what}" if who == "handle" else ""))


def _server(ctx: GradeContext, stance: str | None = None, charged_s: float = 0.0, what: str = "make_server"):
    """A fresh model and make_server(model, traffic) in the worker, with a stop after MAX_GRAPHS graphs (the same
    in every check); ``stance``: a compiler stance for make_server's own run. Every check makes its own server, and
    each make_server is stopped where the compile budget ends on the judge's clock, ``charged_s`` of it spent
    already (loading the submission): a red team's server was cheap in few_graphs, where the budget was read, and
    compiled for 125 s in later checks."""
    budget_s = COMPILE_BUDGET_S - charged_s
    if budget_s <= 0:  # loading alone used it (a load past the budget itself is stopped there: load_budget)
        raise _over_budget(what, f"{charged_s:.1f} s before make_server ran (loading your code)")
    ctx.session.reset()  # each check compiles on its own (and reset() clears an earlier budget)
    model = ctx.call(Fn(f"{WORKLOAD}:build_model"), _size(ctx), _seed(ctx), str(ctx.device), what="building the model")
    ctx.call(Fn(f"{WORKLOAD}:install_graph_budget"), MAX_GRAPHS, what="installing the graph budget")
    start = _perf_counter()
    try:
        handle = ctx.session.invoke(Entry("make_server"), model.ref, history(ctx), device=ctx.device, stance=stance,
                                    timeout=max(round(budget_s, 1), 1.0))
    except RemoteError as err:
        if "GraphBudgetExceeded" in err.chain:
            raise _too_many_graphs("while make_server ran") from None
        raise _failure(err, "make_server(model, traffic)", who="make_server(model, traffic)") from None
    except WorkerGone as err:
        took = _perf_counter() - start
        if took < budget_s:
            raise
        raise _over_budget(what, f"more than {COMPILE_BUDGET_S:g} s: make_server was stopped there, after "
                                 f"{took:.0f} s of its own ({err})") from None
    took = _perf_counter() - start  # one reading: the message's two figures agree
    if took > budget_s:
        raise _over_budget(what, f"{charged_s + took:.1f} s (make_server {took:.1f} s of it)")
    return model, ctx.callable_result(handle, "make_server(model, traffic)")


def _warmed_server(ctx: GradeContext, warm: list[int], load_s: float = 0.0):
    """make_server, then the warm-up stream, on the judge's clock within the compile budget (loading counted too
    where ``load_s`` is given), each request limited to the budget's rest: a slow server stops at the budget.
    Returns (model, handle, seconds per warm-up request, seconds in all)."""
    what = ("loading your code, make_server and the warm-up stream" if load_s else
            "this check's make_server and warm-up stream")
    start = _perf_counter()
    spent = lambda: _perf_counter() - start + load_s  # noqa: E731
    model, handle = _server(ctx, charged_s=spent(), what=what)
    warm_s = []
    for i, t in enumerate(warm):
        try:
            warm_s.append(_serve(ctx, handle, _x(ctx, "warm-up", i, t), f"warm-up request {i + 1} (length {t})",
                                 timeout=max(round(COMPILE_BUDGET_S - spent(), 1), 1.0))[0])
        except WorkerGone as err:
            if spent() < COMPILE_BUDGET_S:
                raise
            raise _over_budget(what, f"{spent():.0f} s when warm-up request {i + 1} of {len(warm)} was stopped "
                                     f"({err})") from None
        if spent() > COMPILE_BUDGET_S and i + 1 < len(warm):
            raise _over_budget(what, f"{spent():.0f} s after warm-up request {i + 1} of {len(warm)}")
    if spent() > COMPILE_BUDGET_S:
        raise _over_budget(what, f"{spent():.0f} s")
    return model, handle, warm_s, spent()


def _serve(ctx: GradeContext, handle, x: torch.Tensor, what: str, stance: str | None = None,
           timeout: float | None = None) -> tuple:
    """One request on the judge's clock, from sharing its input and output (whose sizes tell the length) to the
    reply: (seconds, output read from the judge's memory); ``timeout``: the request's own limit (a budget's rest)."""
    start = _perf_counter()
    slot, = ctx.put([x])
    out, = ctx.out_slots([x.shape])
    try:
        ctx.session.invoke(handle.ref, slot, into=out, keep=False, no_grad=True, stance=stance, device=ctx.device,
                           timeout=timeout)
    except RemoteError as err:
        raise _failure(err, what) from None
    return _perf_counter() - start, ctx.view(out).clone()


def _eager_request_s(ctx: GradeContext, model, lengths: list[int]) -> float:
    """The grader's own eager model on one warm-up request, the fastest of five after two (its own clock). The
    fastest, not the median: other processes on the machine only ever add time to a run, and a yardstick they
    inflate raises the limit a compile hides under (2-core CPU, smoke size: 0.4 ms quiet; beside eight busy
    processes one median was 240 ms, the fastest of the same five 0.55 ms, and at 240 ms constant_latency's 6 s
    requests were under the limit). Sustained load can still inflate the fastest: no timing verdict holds on an
    oversubscribed machine."""
    x = _x(ctx, "eager-latency", 0, max(lengths))
    times = []
    with torch.no_grad():
        for i in range(7):
            synchronize(ctx.device)
            start = _perf_counter()
            model(x)
            synchronize(ctx.device)
            if i >= 2:
                times.append(_perf_counter() - start)
    return min(times)


def check_few_graphs(ctx: GradeContext):
    """No recompile once serving started, established on the judge's clock: the submission runs only while one of
    the grader's requests is outstanding (stopped between them), make_server and the warm-up stream must fit the
    compile budget, and each unseen length's request, timed alone from the moment its input is shared, must not
    take a compile's time; every output is checked. How many graphs the worker compiled, and whether
    ``model.requests`` still counts, is its own word: shown as notes (diagnose), not graded."""
    warm, unseen = stream_lengths(ctx)
    reference = build_model(_size(ctx), _seed(ctx), ctx.device)
    with paused(ctx.session):  # the yardstick on the judge's own, the submission stopped (it could load the CPU)
        honest = HONEST_FACTOR * _eager_request_s(ctx, reference, warm) + HONEST_FLOOR_S
    with ctx.session.stopped_between_requests():
        # loading the submission counts too: a compile (or a cache warmed) at import is still a compile
        model, handle, warm_s, seconds = _warmed_server(ctx, warm, load_s=ctx.notes.get("load_s", 0.0))
        steady = statistics.median(warm_s[len(warm_s) // 2:])
        # The limit grows with the server's steady latency only up to the judge's own eager one (times
        # HONEST_FACTOR): a server that makes every request slow (a constant latency a compile can hide in) does
        # not move it.
        base = min(steady, honest)
        spike = base + max(SPIKE_S, (SPIKE_FACTOR - 1) * base)
        waited = None  # the first request over the limit on which the submission spent little CPU
        mark = ctx.session.beside_mark()
        for i, t in enumerate(unseen):
            x = _x(ctx, "unseen", i, t)
            what = f"unseen request {i + 1} (length {t}, never sent before)"
            cpu = ctx.session.cpu_seconds()  # the operating system's count: stopped between requests, the
            limit = spike + UNSEEN_LIMIT_S  # submission ran for this one only
            start = _perf_counter()
            try:
                took, out = _serve(ctx, handle, x, what, stance="fail_on_recompile", timeout=limit)
            except WorkerGone:
                if _perf_counter() - start < limit:
                    raise
                raise CheckFailed(f"{what} was stopped after {limit:.1f} s on the grader's clock, where a request may "
                                  f"take {spike * 1e3:.0f} ms without a compile: it compiled, or it waited (a sleep, "
                                  "a lock; or a machine too busy to grade on)", _RECOMPILE_HINT) from None
            cpu = ctx.session.cpu_seconds() - cpu
            over = (f"{what} took {took * 1e3:.0f} ms on the grader's clock, over the {spike * 1e3:.0f} ms a request "
                    f"may take without a compile")
            if took > spike and cpu >= COMPILE_CPU_S:
                slow = (f"; the server's steady latency, {steady * 1e3:.1f} ms, is itself over {HONEST_FACTOR:g}x the "
                        f"eager model's request ({honest * 1e3:.1f} ms with its margin)" if steady > honest else "")
                raise CheckFailed(f"{over} (the server's steady {steady * 1e3:.1f} ms){slow}, and your processes spent "
                                  f"{cpu * 1e3:.0f} ms of CPU in it: something compiled while serving it (or other work of "
                                  "your processes ran beside it)",
                                  _RECOMPILE_HINT)
            if took > spike and waited is None:
                waited = (f"{over}, but your processes used only {cpu * 1e3:.0f} ms of CPU in it: not a compile, "
                          "which is CPU work. It waited: for a busy machine's cores (grade again on a quieter one), "
                          "or on something in your code")
            with torch.no_grad():
                check_outputs(out, reference(x.clone()), TOL, f"the output of {what}")
        beside, served = ctx.session.beside_requests_s(mark, serving_cores(ctx))
        if beside > BESIDE_SLACK_S:
            raise _compiled_beside(beside, f"the {len(unseen)} unseen requests ({served:.1f} s on the grader's "
                                           "clock)", serving_cores(ctx))
        if waited is not None:  # no request compiled that the operating system saw; one was too slow to tell
            raise Inconclusive(waited)
    ctx.notes["server"] = (model, handle)  # for the diagnosis
    served = len(warm) + len(unseen)
    return (f"{len(unseen)} unseen lengths served without a compile's delay (slowest "
            f"{max(warm_s[len(warm_s) // 2:] + [steady]) * 1e3:.1f} ms warm) and right, {served} requests in all; "
            f"loading, make_server and warm-up {seconds:.1f} s (budget {COMPILE_BUDGET_S:g} s)",
            {"first_call_s": seconds})


def _over_budget(what: str, took: str) -> CheckFailed:
    return CheckFailed(f"{what} took {took}, over the compile budget of {COMPILE_BUDGET_S:g} s (each check makes "
                       "its own server, and each must fit it)", "a few buckets compile in seconds; every length does "
                       "not")


def few_graphs_diagnosis(ctx: GradeContext) -> list[str]:
    """What the worker says: the graphs it compiled (the exercise's aim: between 1 and MAX_GRAPHS) and whether
    ``model.requests`` still counts requests (three more are sent to see)."""
    from autograder.core.speed import compile_events_since_last

    events = compile_events_since_last(ctx)
    notes = []
    if not events.graphs:
        notes.append("nothing was compiled over the stream: the server runs the model eagerly (compile the model in "
                     "make_server, then make the lengths share its graphs)")
    elif events.graphs > MAX_GRAPHS:
        reasons = "; ".join(str(r) for r in events.recompiles[:2])
        notes.append(f"{events.graphs} graphs were compiled over the stream, more than the {MAX_GRAPHS} this "
                     "exercise aims at" + (f": {reasons}" if reasons else ""))
    else:
        notes.append(f"{events.graphs} graph(s) compiled over the stream ({events.summary()})")
    found = ctx.notes.pop("server", None)
    if found is None:
        return notes
    model, handle = found
    _, _, _, lo, _, _, _ = CONFIGS[_size(ctx)]
    before = ctx.call(Fn(f"{WORKLOAD}:requests_of"), model.ref, what="reading model.requests").value.get("value")
    for i in range(3):
        _serve(ctx, handle, _x(ctx, "counting", i, lo), f"counting request {i + 1}")
    after = ctx.call(Fn(f"{WORKLOAD}:requests_of"), model.ref, what="reading model.requests").value.get("value")
    if not (isinstance(before, int) and isinstance(after, int) and after - before == 3):
        notes.append(f"model.requests went from {before!r} to {after!r} over 3 requests: the monitoring no longer "
                     "counts requests (keep counting, outside the compiled code: model.requests += 1 in handle)")
    else:
        notes.append("model.requests counts every request")
    return notes


def correctness_cases(ctx: GradeContext) -> list[tuple[str, tuple]]:
    """The shortest and the longest length, then lengths from the secret: every bucket a server may use."""
    _, _, _, lo, hi, _, _ = CONFIGS[_size(ctx)]
    gen = torch.Generator().manual_seed(ctx.seed("correctness-lengths"))
    lengths = [lo, hi] + [int(t) for t in torch.randint(lo, hi + 1, (6,), generator=gen)]
    return [(f"a request of length {t}", (_x(ctx, "correctness", i, t),)) for i, t in enumerate(lengths)]


def check_outputs_match(ctx: GradeContext):
    _, handle = _server(ctx)
    try:
        with torch.no_grad():
            n = ctx.trials(handle.ref, build_model(_size(ctx), _seed(ctx), ctx.device), correctness_cases(ctx), TOL,
                           "handle")
    except CheckFailed as err:
        cause = err.__cause__
        if isinstance(cause, RemoteError) and "GraphBudgetExceeded" in cause.chain:
            raise _too_many_graphs("while the lengths were checked") from None
        raise
    return (f"matches the eager model on {n} lengths, the shortest and longest included "
            f"(rtol={TOL.rtol:g}, atol={TOL.atol:g})")


def check_speed(ctx: GradeContext):
    d = CONFIGS[_size(ctx)][0]
    warm, _ = stream_lengths(ctx)
    cycle = speed_cycle(ctx)
    try:
        ctx.gate()
    except NeedsGPU:  # not graded here; an unwritten or crashing make_server still fails, and nothing compiles
        _server(ctx, stance="force_eager")
        raise
    _, handle, _, _ = _warmed_server(ctx, warm)
    baseline, reference = (build_model(_size(ctx), _seed(ctx), ctx.device) for _ in range(2))
    timed = Timed(args=lambda gen, i: (torch.randn(1, cycle[i % CYCLE], d, generator=gen, device=ctx.device),),
                  tol=TOL, chain=f"{WORKLOAD}:overlap_chain", stance="fail_on_recompile", calls_multiple=CYCLE)
    message, details = speed_check(ctx, baseline, handle.ref, timed, name="handle", reference=reference)
    _no_compile_while_serving(ctx)
    return message, details


def _compiled_beside(beside_s: float, during: str, cores: int) -> CheckFailed:
    """Work beside the requests, as the operating system counts it (Session.beside_requests_s): a compile in another
    thread or process (a red team's relay to a forked child compiled one graph per exact length beside them)."""
    return CheckFailed(f"while {during} ran, your processes used {beside_s:.1f} s of CPU beyond what serving them "
                       f"takes ({cores} core(s) busy through each request; {BESIDE_SLACK_S:g} s allowed): work beside "
                       "the requests, which is something compiling in another thread or process",
                       "compile every graph inside make_server, before the stream starts, in the process and "
                       "thread that serves")


def _no_compile_while_serving(ctx: GradeContext) -> None:
    """The speed check serves traffic too (lengths never sent before among them), its warm-up one request at a time:
    no block of it may take a compile's time beyond its requests' steady latency (the judge's clock). Else a server
    that could tell the checks apart (a red team read which graph budget was installed) served few_graphs eagerly
    and compiled lazily here, where the stance that forbids it is the worker's to change."""
    _, cand, _ = ctx.notes.get("speed", (None, None, None))
    if cand is None or not cand.per_call:
        return
    if "speed_beside_s" in ctx.notes and ctx.notes["speed_beside_s"] is None:
        raise Inconclusive(ctx.notes["speed_beside_why"])
    if ctx.notes.get("speed_beside_s", 0.0) > BESIDE_SLACK_S:
        raise _compiled_beside(ctx.notes["speed_beside_s"], "the speed check's timed blocks", serving_cores(ctx))
    steady = statistics.median(cand.per_call)
    worst, calls = max((seconds - n * steady, n) for seconds, n in cand.blocks)
    if worst > SPIKE_S:
        raise CheckFailed(f"during the speed check a block of {calls} request(s) took "
                          f"{worst * 1e3:.0f} ms beyond their steady time on the grader's clock: something compiled "
                          "while serving them (or other work of your processes ran beside them)", _RECOMPILE_HINT)


EXERCISE = Exercise(
    id=ID,
    title="Dynamic shapes: serve real traffic, every length, without recompiling",
    entry_points=("make_server",),
    baseline="the eager model, one request at a time",
    speed_gate=1.5,
    load_budget=lambda: COMPILE_BUDGET_S,  # the compile budget charges loading: a load past it is stopped there
    checks=(
        Check("few_graphs", "no recompile on lengths never sent before: no request takes a compile's time", 3,
              check_few_graphs, ("make_server",), kind="structure", hidden=True, decided_by=(
                  clock("loading your code, make_server and the warm-up stream within the compile budget, and each "
                        "unseen length's "
                        "request, from sharing its input to the reply, under a compile's latency; your processes "
                        "stopped between requests", "entry", "ref", "pool", "reset", f"{WORKLOAD}:build_model",
                        f"{WORKLOAD}:install_graph_budget"),
                  answer("every unseen request's output, read from the grader's memory, against its own eager "
                         "model", "ref"),
                  judge("the CPU time your processes used in a request over the limit, as the operating system "
                        "counts it: with little, the request waited and did not compile (inconclusive, no points)"),
                  judge("the CPU your processes used beside the unseen requests, beyond one core busy through "
                        f"each (torch's threads on a CPU), as the operating system counts it: over "
                        f"{BESIDE_SLACK_S:g} s, something compiled in another thread or process")),
              diagnose=few_graphs_diagnosis, diagnostics=(
                  worker("the graphs compiled over the stream (at most 6 is the aim), counted in your process",
                         "events"),
                  worker("model.requests, read in your process before and after three more requests",
                         f"{WORKLOAD}:requests_of"))),
        Check("outputs_match", "matches the eager model for every length", 3, check_outputs_match,
              ("make_server",), hidden=True, decided_by=(
                  answer("the outputs for the shortest, the longest and lengths drawn from the secret, against the "
                         "grader's own eager model", "ref"),
                  clock("this check's make_server within the compile budget", "entry"),)),
        Check("speed", "at least 1.5x faster than eager on the traffic", 4, check_speed,
              ("make_server",), kind="speed", decided_by=SPEED_FACTS + (
                  clock("this check's make_server and warm-up stream within the compile budget", "entry", "ref"),
                  clock("no block of the timed traffic over its requests' steady time by a compile's", "block"),
                  judge("the CPU your processes used beside the requests from the speed check's fourth request "
                        "on, beyond one core busy through each, as the operating system counts it: over "
                        f"{BESIDE_SLACK_S:g} s, something compiled in another thread or process"),),
              diagnose=speed_diagnosis,
              diagnostics=SPEED_DIAGNOSTICS),
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
            "Look at the traffic first: sorted(traffic) or a histogram. Where are most requests, and how long is "
            "the longest?",
            "Time one compiled bucket at a few lengths (64, 512, 2048, 8192) against the eager model on a short "
            "request: a request padded far beyond its length pays for every padded position.",
            "The timed requests follow the traffic: the time that matters is the average over it. Equal-width "
            "buckets pad the common short requests to the first bucket's length.",
            "Put bucket edges where the traffic is, closer together where requests are many and short; the last "
            "edge must still be max_len. Then compare your edges' average against eager on the traffic itself.",
        ],
    },
)
