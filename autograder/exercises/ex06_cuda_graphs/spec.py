"""Exercise 06: CUDA graphs by hand, for a step that the lesson's recipe cannot capture as it is.

``make_graphed_step(model, batch_size) -> step(x) -> y``: serve inference of ``workload.EarlyExit`` (4 residual
blocks of width 256, then one decision for the whole batch: typical requests leave through a LayerNorm, a batch with
an atypical request runs 8 more blocks; float32, batch 8, under ``torch.no_grad()``) with CUDA graphs captured by hand
(``torch.cuda.CUDAGraph`` / ``torch.cuda.graph``, not ``torch.compile``), at least 1.5x faster than the eager model.

The transfer (issue 39 item 2). The model's decision is a Python ``if`` on a tensor (``EarlyExit.forward``): the host
reads a value the GPU computed (``Tensor.__bool__`` -> ``aten._local_scalar_dense``: on a GPU a copy to the host and a
stream synchronisation). Lesson 6's recipe (cell 7: side-stream warm-up, ``with torch.cuda.graph(g): static_out =
model(static_in)``, copy in, replay, clone) copied as it is runs that read inside the capture, which CUDA refuses
(lesson 6, section 3 shows ``.item()`` refused): ``make_graphed_step`` raises and every check fails
(``cases/lesson_recipe.py``). The learner must find the read in the model's code from the traceback and choose how to
take the decision out of the host without changing what the model computes: both ways computed in one graph and the
batch's choice made on the GPU (``torch.where`` on the 0-dim decision: the reference solution), or a graph up to the
decision, one host read, then one of two graphs sharing its memory pool (``cases/two_graphs_host_decision.py``), or
``make_graphed_callables`` over a branchless module (``cases/graphed_callables.py``). Capturing one way only, or
deciding from the previous call, is wrong for the batches that go the other way: every sequence of inputs the grader
draws has both ways and both switches between them; which calls go which way is drawn from the grading's secret, a
pattern per check (``workload.atypical_pattern``), so a step that picks its way by call index instead of reading the
batch's decision is wrong too (``cases/one_way_captured.py``, ``cases/previous_decision.py``,
``cases/index_pattern.py``).

- fresh_inputs: ``step(x)`` equals ``model(x)`` for six new inputs, typical and atypical batches in a pattern drawn
  from the secret (a graph that replays on the capture-time input, that took one way at capture, or that picks its
  way by call index, is wrong there);
- batch_size: a batch of another size raises ValueError (a smaller one would broadcast into the static buffer);
- fresh_process: shipped by the grader into a new process (its own cut of the submission's source), as that
  process's first CUDA work (a serving worker starting up), it gives the right results for three batches, typical,
  atypical, typical or atypical, typical, atypical as the secret draws (capturing before warming up fails there);
  whether it captured a CUDA graph without torch.compile is counted there: a note;
- speed: at least 1.5x faster than the eager model on calls whose batches go both ways (the check's own pattern
  from the secret, repeated), every output of a timed block kept to the block's end (the static output buffer does
  not keep them). Whether outputs stay valid outside timing, as the worker reads them back, is a note on
  fresh_inputs.

What a CPU shows and what only a GPU will (tests/test_exercises.py, tests/test_cases.py): on a CPU every check
reports "needs a CUDA GPU" once the learner's code has run. Verified on a CPU (torch 2.13): the model's forward reads
one value on the host per call (``aten._local_scalar_dense``, seen by a dispatch mode) and the reference's captured
function none; that function equals the model on both ways; the grader's inputs of every check go both ways with
both switches, in a pattern that differs between secrets (and is not the old fixed one under the public secret), the
decision far from the radius (RMS at most 1.5 against at least 4.5, over 40 seeds at both sizes); every case's
``make_graphed_step`` is cut by the grader's static_closure and loads again. Not measured yet (the GPU's): that the
recipe's capture raises on the course's GPUs, each case's verdict, and the speed. Design estimate, not a
measurement: lesson 6 measured a hand capture of ``make_mlp(256, 8)`` at batch 8 at 6.4x-12x over eager; here the
reference replays the first stage, both ways and the choice (about 57 kernels) where eager launches about 23
(typical) or 55 (atypical) and waits once per call, so its margin should be near that of the lesson (3x-6x expected;
``benchmarks/design/ex06_transfer.py`` measures it before ``make gpu-check`` grades it 20 times).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import torch

from autograder.core.grading import GradeContext, RemoteError, Session
from autograder.core.protocol import Check, CheckFailed, Exercise, NeedsGPU, Tolerance
from autograder.core.speed import SPEED_DIAGNOSTICS, SPEED_FACTS, Timed, speed_check, speed_diagnosis
from autograder.core.submission import SubmissionError, static_closure
from autograder.core.trust import answer, judge, worker
from autograder.core.wire import Entry, Fn, WorkerGone
from autograder.exercises.ex06_cuda_graphs.workload import (
    CONFIGS,
    PATTERN_CALLS,
    atypical_call,
    atypical_pattern,
    build_model,
    make_batch,
)

ID = "06_cuda_graphs"
WORKLOAD = "autograder.exercises.ex06_cuda_graphs.workload"
# The same kernels replayed: bit-identical to eager on an H200; a stale or broadcast output is off by ~1.
TOL = Tolerance(rtol=1e-5, atol=1e-5)
FRESH_PROCESS_TIMEOUT_S = 180.0
STAY_VALID_CALLS = (32, 48)  # outputs kept and read back at the end: longer than any cheap ring of buffers
# The sequences whose ways (typical or atypical batch, call by call) the secret draws: calls in each one's pattern
# (pattern_for; repeated past its end). The fresh process runs three calls: T,A,T or A,T,A.
SEQUENCES = {"correctness": PATTERN_CALLS, "stay-valid": PATTERN_CALLS, "fresh-process": 3, "speed": PATTERN_CALLS}
_WARMUP_HINT = ("warm up before capturing: run the model a few times on a side stream, the way lesson 6's "
                "capture recipe does (the side stream waits for the current one, and the current one for it), so that "
                "lazy initialisation (cuBLAS handles, workspaces) happens outside the capture")
_CAPTURE_HINT = ("a capture fails when something inside it makes the CPU wait for the GPU (a sync) or initialises "
                 "lazily: run make_graphed_step in your notebook and read the traceback down to the first error and "
                 "the line of the model's code it went through (model.forward?? shows it). A value the GPU computed, "
                 "read on the host (.item(), an `if` on a tensor, .cpu()), cannot happen during a capture (lesson 6, "
                 "section 3); lazy set-up (cuBLAS) inside a capture fails too: warm up on a side stream before capturing")
_OUTPUTS = answer("the outputs, read from the grader's memory, against its own eager model on its own copies of the "
                  "inputs", "ref")
_CLONE_HINT = ("the graph writes every replay into the same output buffer: what you return must belong to the "
               "caller, not to the graph")


def _seed(ctx: GradeContext, purpose: str = "weights") -> int:
    return ctx.seed(purpose) % 2**31


def pattern_for(ctx: GradeContext, purpose: str) -> tuple[bool, ...]:
    """Which calls of the sequence drawn for ``purpose`` (one check's) get an atypical batch: a pattern of
    ``SEQUENCES[purpose]`` calls drawn from the grading's secret, holding both kinds and both switches
    (workload.atypical_pattern). Another secret, another pattern; each check has its own."""
    return atypical_pattern(ctx.seed(f"{purpose} ways"), SEQUENCES.get(purpose, PATTERN_CALLS))


def _x(ctx: GradeContext, purpose: str, index: int, batch: int | None = None,
       ways: tuple[bool, ...] | None = None) -> torch.Tensor:
    """Input ``index`` of the sequence drawn for ``purpose``: typical or atypical as its pattern says (``ways``, by
    default the purpose's own :func:`pattern_for`; repeated past its end)."""
    cfg = CONFIGS[ctx.size]
    atypical = atypical_call(ways or pattern_for(ctx, purpose), index)
    return make_batch(ctx.generator(purpose, index), batch or cfg.batch, cfg.width, atypical, ctx.device)


def _way(atypical: bool) -> str:
    return "atypical batch: deep stage" if atypical else "typical batch: early exit"


def _step(ctx: GradeContext):
    """The learner's step on a fresh model; on a CPU, "needs a CUDA GPU" once their code has run (an unwritten
    stub still fails as unwritten)."""
    batch = CONFIGS[ctx.size].batch
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
                          _CAPTURE_HINT if "captur" in err.message else "") from None
    if not ctx.cuda:
        raise NeedsGPU("CUDA graphs need a CUDA GPU (this machine has none)")
    return ctx.callable_result(step, f"make_graphed_step(model, {batch})")


def _reference(ctx: GradeContext) -> torch.nn.Module:
    return build_model(ctx.size, _seed(ctx), ctx.device)


def correctness_cases(ctx: GradeContext) -> list[tuple[str, tuple]]:
    ways = pattern_for(ctx, "correctness")
    return [(f"fresh input {i + 1} ({_way(atypical)})", (_x(ctx, "correctness", i, ways=ways),))
            for i, atypical in enumerate(ways)]


def check_fresh_inputs(ctx: GradeContext):
    step = _step(ctx)
    with torch.no_grad():
        n = ctx.trials(step.ref, _reference(ctx), correctness_cases(ctx), TOL, "step")
    return f"matches the eager model on {n} fresh inputs, each a new tensor, typical and atypical batches"


def stay_valid_diagnosis(ctx: GradeContext) -> list[str]:
    """Whether every output kept its values while later calls ran, as the worker reads them back (not graded: the
    speed check's kept outputs, read after each block, are)."""
    step = _step(ctx)
    ways = pattern_for(ctx, "stay-valid")
    return [ctx.outputs_stay_valid(step.ref, _reference(ctx), lambda i: _x(ctx, "stay-valid", i, ways=ways), TOL,
                                   "step", _CLONE_HINT, STAY_VALID_CALLS)]


def check_batch_size(ctx: GradeContext):
    step = _step(ctx)
    batch = CONFIGS[ctx.size].batch
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
                                  "say it: raise ValueError(f'this graph takes a batch of {batch}, got ...')") \
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
        # the same code captured in the grader's worker (_step above): what differs here is a GPU nothing ran on
        raise CheckFailed(f"in a fresh process, where nothing has run on the GPU yet, make_graphed_step failed: "
                          f"{err.describe()}", _WARMUP_HINT if "captur" in err.message else "") from None
    step = fresh.invoke(Fn(f"{WORKLOAD}:kept_step"))
    reference = build_model(ctx.size, _seed(ctx, "fresh-process"), ctx.device)
    inner = type(ctx)(ctx.exercise, fresh, ctx.device, ctx.secret, ctx.policy)
    ways = pattern_for(ctx, "fresh-process")  # T,A,T or A,T,A: both switches in three calls
    cases = [(f"fresh input {i + 1} in the new process ({_way(atypical)})", (_x(ctx, "fresh-process", i, ways=ways),))
             for i, atypical in enumerate(ways)]
    try:
        with torch.no_grad():
            inner.trials(step.ref, reference, cases, TOL, "step")
    except CheckFailed as err:
        raise CheckFailed(f"in a fresh process, as its first CUDA work: {err.reason}", _WARMUP_HINT) from None
    finally:
        inner.drop_pools()
    return "in a fresh process, as its first CUDA work, three fresh inputs right (both ways)"


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
    cfg = CONFIGS[ctx.size]
    step = _step(ctx)
    baseline, reference = _reference(ctx), _reference(ctx)
    # the check's pattern from the secret, repeated: both ways in any 6 calls in a row, both switches in any 7; the
    # chained input keeps the fresh one's magnitudes (copysign), hence its way
    ways = pattern_for(ctx, "speed")
    timed = Timed(args=lambda gen, i: (make_batch(gen, cfg.batch, cfg.width, atypical_call(ways, i), ctx.device),),
                  tol=TOL, chain="autograder.core.blocks:copysign_chain", keep=True, expect_compiled=False)
    return speed_check(ctx, baseline, step.ref, timed, name="step", reference=reference)


EXERCISE = Exercise(
    id=ID,
    title="CUDA graphs by hand: a step with a decision, captured, replayed, outputs kept",
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
            "First make it run: call make_graphed_step(model, batch) in your notebook on the GPU. If the capture "
            "raises, read the traceback down to the first error: which line of the model's code was running? "
            "(model.forward?? and model.typical?? show the code.)",
            "A capture records kernels; it runs nothing. Any line that needs a value the GPU computed on the host "
            "(.item(), an `if` on a tensor, .cpu(), print) makes the CPU wait, and a capture refuses it (lesson 6, "
            "section 3). The graph cannot contain that decision as Python: where else can it be made?",
            "Two ways out, to measure: keep the decision on the GPU inside one graph (lesson 4 showed how to turn "
            "a data-dependent `if` into tensor ops: both results exist, and a 0-dim bool picks one), or capture up to "
            "the decision, read it once on the host outside any capture, then replay a graph for the way it chose "
            "(graphs never replayed at the same time, and always in the order they were captured, can share one "
            "memory pool: lesson 6, section 2). What does each cost per call?",
            "Whatever you choose, compare with the model on both kinds of batch: a typical one "
            "(make_batch(gen, batch, width, False, device)) and an atypical one (True). A graph captured on one "
            "kind only replays that kind's way; a decision read one call late is wrong whenever the kind changes. "
            "A CUDA graph replays on the addresses it captured: copy each new x into the static input buffer.",
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
            "At batch 8 each layer's kernels take microseconds: eager time is launch overhead (and, here, one wait "
            "per call for the decision), which a replay removes. Keep the Python around replay() small: one copy_ "
            "in, one clone out.",
            "Time your step on typical and atypical batches separately, against the model: the grader times both "
            "kinds. Work the graph does on every call that eager skips on typical batches costs GPU time; a host "
            "read costs a wait. Which is smaller at this batch?",
        ],
    },
)
