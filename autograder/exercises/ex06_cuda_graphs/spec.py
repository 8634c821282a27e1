"""Exercise 06: CUDA graphs by hand.

``make_graphed_step(model, batch_size) -> step(x) -> y``: capture one inference step of a launch-bound network
(``autograder.course.models.make_mlp``: 8 residual blocks of width 256, float32, batch 8, under
``torch.no_grad()``) with ``torch.cuda.CUDAGraph`` / ``torch.cuda.graph`` — by hand, not with ``torch.compile``
— and return a function that replays it on fresh inputs:

- fresh_inputs: ``step(x)`` equals ``model(x)`` for every new input (a graph that replays on the capture-time
  input is wrong from the second call);
- batch_size: a batch of another size raises ValueError (a smaller one would broadcast into the static buffer);
- fresh_process: shipped by the grader into a new process (its own cut of the submission's source), as that
  process's first CUDA work (a serving worker starting up), it gives the right results (capturing before warming
  up fails there); whether it captured a CUDA graph without torch.compile is counted there: a note;
- speed: at least 1.5x faster than the eager model, every output of a timed block kept to the block's end (the
  static output buffer does not keep them). Whether outputs stay valid outside timing, as the worker reads them
  back, is a note on fresh_inputs.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch

from autograder.core.correctness import check_outputs
from autograder.core.grading import GradeContext, RemoteError, Session
from autograder.core.protocol import Check, CheckFailed, Exercise, NeedsGPU, Tolerance
from autograder.core.speed import SPEED_DIAGNOSTICS, SPEED_FACTS, Timed, speed_check, speed_diagnosis
from autograder.core.submission import SubmissionError, static_closure
from autograder.core.trust import answer, judge, worker
from autograder.core.wire import Entry, Fn, WorkerGone
from autograder.exercises.ex06_cuda_graphs.workload import CONFIGS, build_model

ID = "06_cuda_graphs"
WORKLOAD = "autograder.exercises.ex06_cuda_graphs.workload"
# The same kernels replayed: bit-identical to eager on an H200; a stale or broadcast output is off by ~1.
TOL = Tolerance(rtol=1e-5, atol=1e-5)
FRESH_PROCESS_TIMEOUT_S = 180.0
STAY_VALID_CALLS = (32, 48)  # outputs kept and read back at the end: longer than any cheap ring of buffers
_WARMUP_HINT = ("warm up before capturing: run the model a few times on a side stream "
                "(s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream()); with torch.cuda.stream(s): "
                "...; torch.cuda.current_stream().wait_stream(s)), so that lazy initialisation (cuBLAS handles, "
                "workspaces) happens outside the capture")
_OUTPUTS = answer("the outputs, read from the grader's memory, against its own eager model on its own copies of the "
                  "inputs", "ref")
_CLONE_HINT = ("the graph writes every replay into the same output buffer: return a copy (static_out.clone()), "
               "which belongs to the caller")


def _seed(ctx: GradeContext, purpose: str = "weights") -> int:
    return ctx.seed(purpose) % 2**31


def _x(ctx: GradeContext, purpose: str, index: int, batch: int | None = None) -> torch.Tensor:
    width, _, default = CONFIGS[ctx.size]
    return torch.randn(batch or default, width, generator=ctx.generator(purpose, index), device=ctx.device)


def _step(ctx: GradeContext):
    """The learner's step on a fresh model; on a CPU, "needs a CUDA GPU" once their code has run (an unwritten
    stub still fails as unwritten)."""
    _, _, batch = CONFIGS[ctx.size]
    model = ctx.call(Fn(f"{WORKLOAD}:build_model"), ctx.size, _seed(ctx), str(ctx.device), what="building the model")
    try:
        step = ctx.session.invoke(Entry("make_graphed_step"), model.ref, batch, no_grad=True, device=ctx.device)
    except RemoteError as err:
        if err.not_implemented:
            raise CheckFailed("make_graphed_step is not written yet (it raises NotImplementedError)",
                              "replace `raise NotImplementedError()` with your code") from None
        if not ctx.cuda:
            raise NeedsGPU("CUDA graphs need a CUDA GPU (this machine has none): torch.cuda.CUDAGraph cannot "
                           "be created here") from None
        raise CheckFailed(f"make_graphed_step(model, {batch}) raised {err.describe()}",
                          _WARMUP_HINT if "captur" in err.message else "") from None
    if not ctx.cuda:
        raise NeedsGPU("CUDA graphs need a CUDA GPU (this machine has none)")
    return ctx.callable_result(step, f"make_graphed_step(model, {batch})")


def _reference(ctx: GradeContext) -> torch.nn.Module:
    return build_model(ctx.size, _seed(ctx), ctx.device)


def correctness_cases(ctx: GradeContext) -> list[tuple[str, tuple]]:
    return [(f"fresh input {i + 1}", (_x(ctx, "correctness", i),)) for i in range(6)]


def check_fresh_inputs(ctx: GradeContext):
    step = _step(ctx)
    with torch.no_grad():
        n = ctx.trials(step.ref, _reference(ctx), correctness_cases(ctx), TOL, "step")
    return f"matches the eager model on {n} fresh inputs, each a new tensor"


def stay_valid_diagnosis(ctx: GradeContext) -> list[str]:
    """Whether every output kept its values while later calls ran, as the worker reads them back (not graded: the
    speed check's kept outputs, read after each block, are)."""
    step = _step(ctx)
    return [ctx.outputs_stay_valid(step.ref, _reference(ctx), lambda i: _x(ctx, "stay-valid", i), TOL, "step",
                                   _CLONE_HINT, STAY_VALID_CALLS)]


def check_batch_size(ctx: GradeContext):
    step = _step(ctx)
    _, _, batch = CONFIGS[ctx.size]
    for other in (1, 2 * batch):
        slot, = ctx.put([_x(ctx, "batch", other, other)])
        try:
            out = ctx.session.invoke(step.ref, slot, no_grad=True, device=ctx.device)
        except RemoteError as err:
            if err.type != "ValueError":
                raise CheckFailed(f"a batch of {other} raised {err.type} from deep inside: {err.first_line()}",
                                  "check x.shape before copying into the static buffer and raise ValueError") from None
            if str(batch) not in err.message:
                raise CheckFailed(f"a batch of {other} raised ValueError({err.message!r}), which does not say which "
                                  f"batch size the graph takes ({batch})",
                                  f"say it: raise ValueError(f'this graph takes a batch of {{batch}}, got ...')") \
                    from None
            continue
        shape = tuple(out.value.get("shape", ())) or out.value.get("type")
        raise CheckFailed(f"a batch of {other} was accepted (output {shape}): a CUDA graph replays the shapes it "
                          f"captured, so that output is not model(x)" + (" — a smaller batch broadcasts into the "
                          "static buffer silently" if other < batch else ""),
                          "check x.shape before copying into the static buffer and raise ValueError")
    return f"batches of 1 and {2 * batch} raise ValueError naming the batch size {batch}"


def check_fresh_process(ctx: GradeContext):
    """make_graphed_step, shipped by the grader into a new process as that process's first CUDA work: the source is
    the grader's own cut of the submission it read (static_closure: the imports, make_graphed_step and what it names;
    nothing the submission's process says), and the outputs there are checked as everywhere."""
    _step(ctx)  # unwritten or CPU: reported here
    if ctx.sources is None:
        raise CheckFailed("the grader has no copy of your notebook's cells to ship into a fresh process",
                          "run the check from the notebook (Jupyter) or grade the file with python -m autograder")
    try:
        source = static_closure(ctx.sources, "make_graphed_step")
    except SubmissionError as err:
        raise CheckFailed(str(err)) from None
    scratch = tempfile.mkdtemp(prefix="autograder-fresh-")
    fresh = Session.spawn(timeout=FRESH_PROCESS_TIMEOUT_S, scratch=Path(scratch))
    fresh.timeout = FRESH_PROCESS_TIMEOUT_S
    ctx.notes["fresh"] = fresh  # the diagnosis reads its counters; closed when the check ends, however it ends

    def close():
        ctx.notes.pop("fresh", None)
        fresh.close()
        shutil.rmtree(scratch, ignore_errors=True)
    ctx.cleanups.append(close)
    try:
        return _in_fresh_process(ctx, fresh, source)
    except WorkerGone as err:
        raise CheckFailed(f"in a fresh process, your code (shipped there with the helpers it names) did not "
                          f"finish: {err}", "define make_graphed_step and its helpers with def at the top "
                          "level of a cell, and import what they use") from None


def _in_fresh_process(ctx: GradeContext, fresh: Session, source: str):
    fresh.call("hello")
    load = fresh.call("load", sources=[source], entry_points=["make_graphed_step"])
    entries = load.get("entry_points") if isinstance(load.get("entry_points"), dict) else {}
    if "fatal" in load or not (entries.get("make_graphed_step") or {}).get("callable"):
        errors = "; ".join(map(str, load.get("load_errors") or [])) or str(load.get("fatal",
                                                                                  "make_graphed_step is missing"))
        raise CheckFailed(f"in a fresh process, your code (shipped there with the helpers it names) did not load: "
                          f"{errors}", "define make_graphed_step and its helpers with def at the top level of a "
                          "cell, and import what they use")
    try:
        fresh.invoke(Fn(f"{WORKLOAD}:capture_in_fresh_process"), Entry("make_graphed_step"), ctx.size,
                     _seed(ctx, "fresh-process"), keep=False)
    except RemoteError as err:
        raise CheckFailed(f"in a fresh process, where nothing has run on the GPU yet, make_graphed_step failed: "
                          f"{err.describe()}", _WARMUP_HINT if "captur" in err.message else "") from None
    step = fresh.invoke(Fn(f"{WORKLOAD}:kept_step"))
    reference = build_model(ctx.size, _seed(ctx, "fresh-process"), ctx.device)
    inner = type(ctx)(ctx.exercise, fresh, ctx.device, ctx.secret, ctx.policy)
    cases = [(f"fresh input {i + 1} in the new process", (_x(ctx, "fresh-process", i),)) for i in range(3)]
    try:
        with torch.no_grad():
            inner.trials(step.ref, reference, cases, TOL, "step")
    except CheckFailed as err:
        raise CheckFailed(f"in a fresh process, as its first CUDA work: {err.reason}", _WARMUP_HINT) from None
    finally:
        inner.drop_pools()
    return "in a fresh process, as its first CUDA work, three fresh inputs right"


def fresh_process_diagnosis(ctx: GradeContext) -> list[str]:
    """What the fresh process says about itself: CUDA-graph captures and torch.compile graphs (not graded)."""
    fresh = ctx.notes.get("fresh")
    if fresh is None or fresh.dead:
        return []
    counts = fresh.invoke(Fn(f"{WORKLOAD}:fresh_counts"), keep=False).value.get("value") or {}
    counts = counts if isinstance(counts, dict) else {}
    if counts.get("graphs"):
        return [f"make_graphed_step compiled {counts['graphs']} graph(s) with torch.compile: this exercise is "
                "about capturing CUDA graphs by hand (torch.cuda.CUDAGraph, torch.cuda.graph)"]
    if not counts.get("captures"):
        return ["make_graphed_step never captured a CUDA graph (torch.cuda.CUDAGraph.capture_begin was not "
                "called): capture the step: with torch.cuda.graph(g): static_out = model(static_in)"]
    return [f"{counts['captures']} CUDA graph capture(s), no torch.compile"]


def check_speed(ctx: GradeContext):
    width, _, batch = CONFIGS[ctx.size]
    step = _step(ctx)
    baseline, reference = _reference(ctx), _reference(ctx)
    timed = Timed(args=lambda gen, i: (torch.randn(batch, width, generator=gen, device=ctx.device),), tol=TOL,
                  chain="autograder.core.blocks:copysign_chain", keep=True, expect_compiled=False)
    return speed_check(ctx, baseline, step.ref, timed, name="step", reference=reference)


EXERCISE = Exercise(
    id=ID,
    title="CUDA graphs by hand: capture, replay, keep outputs",
    entry_points=("make_graphed_step",),
    baseline="the eager model",
    speed_gate=1.5,
    checks=(
        Check("fresh_inputs", "step(x) equals model(x) for every fresh input", 2, check_fresh_inputs,
              ("make_graphed_step",), hidden=True, decided_by=(_OUTPUTS,),
              diagnose=stay_valid_diagnosis, diagnostics=(
                  worker("whether 32-48 kept outputs still held their values after later calls, as your process "
                         "reads them back", "autograder.core.blocks:same"),)),
        Check("batch_size", "another batch size raises ValueError naming the captured one", 1, check_batch_size,
              ("make_graphed_step",), decided_by=(
                  answer("for batches of another size: an exception of type ValueError naming the captured batch, "
                         "and no output", "ref"),)),
        Check("fresh_process", "warmed up before capturing: works as a new process's first CUDA work", 1,
              check_fresh_process, ("make_graphed_step",), kind="structure", decided_by=(
                  judge("the source shipped to the new process, cut by the grader from the submission it read "
                        "(imports, make_graphed_step and what it names)"),
                  answer("the outputs there, for three fresh inputs, against the grader's own model",
                         f"{WORKLOAD}:capture_in_fresh_process", f"{WORKLOAD}:kept_step", "ref")),
              diagnose=fresh_process_diagnosis, diagnostics=(
                  worker("CUDA-graph captures and torch.compile graphs in the fresh process, counted there",
                         f"{WORKLOAD}:fresh_counts"),)),
        Check("speed", "at least 1.5x faster than the eager model", 6, check_speed, ("make_graphed_step",),
              kind="speed", decided_by=SPEED_FACTS + (
                  answer("every output of a block, kept to its end and read into slots the grader deals out only "
                         "after the calls, against its own reference on the sampled calls", "collect"),),
              diagnose=speed_diagnosis, diagnostics=SPEED_DIAGNOSTICS),
    ),
    hints={
        "fresh_inputs": [
            "A CUDA graph replays on the addresses it captured: copy each new x into the static input buffer "
            "(static_in.copy_(x)) before g.replay().",
        ],
        "batch_size": [
            "The graph was captured for one shape. Check x.shape[0] and raise ValueError naming the batch size.",
        ],
        "fresh_process": [
            "Run your make_graphed_step in a new Python process as the first thing it does on the GPU.",
            "Warm up on a side stream before capturing: lazy initialisation (cuBLAS handles and workspaces) "
            "cannot happen inside a capture.",
        ],
        "speed": [
            "At batch 8 each layer's kernels take microseconds: eager time is launch overhead, which one replay "
            "removes. Keep the Python around replay() small: one copy_ in, one clone out.",
        ],
    },
)
