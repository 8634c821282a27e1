"""Exercise 06: CUDA graphs by hand.

``make_graphed_step(model, batch_size) -> step(x) -> y``: capture one inference step of a launch-bound network
(``autograder.models.make_mlp``: 8 residual blocks of width 256, float32, batch 8, under ``torch.no_grad()``)
with ``torch.cuda.CUDAGraph`` / ``torch.cuda.graph`` — by hand, not with ``torch.compile`` — and return a
function that replays it on fresh inputs:

- fresh_inputs: ``step(x)`` equals ``model(x)`` for every new input (a graph that replays on the capture-time
  input is wrong from the second call);
- outputs_stay_valid: an output keeps its values after the next call (the static output buffer does not);
- batch_size: a batch of another size raises ValueError (a smaller one would broadcast into the static buffer);
- fresh_process: in a new process, as its first CUDA work (a serving worker starting up), it captures a CUDA
  graph without torch.compile and gives the right result (capturing before warming up fails there);
- speed: at least 1.5x faster than the eager model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import torch

from autograder.correctness import Case, CheckFailed, Tolerance, generator, run_trials, seed_for
from autograder.exercises.spec import Check, Exercise, WrongApproach
from autograder.models import make_mlp

ID = "06_cuda_graphs"
CONFIGS = {  # (width, depth, batch): only a CUDA GPU runs this exercise; the smoke size is for its tests
    "smoke": (64, 4, 4),
    "full": (256, 8, 8),
}
# The same kernels replayed: bit-identical to eager on an H200; a stale or broadcast output is off by ~1.
TOL = Tolerance(rtol=1e-5, atol=1e-5)
FRESH_PROCESS_TIMEOUT_S = 180.0


def _model(ctx):
    width, depth, _ = CONFIGS[ctx.size]
    return make_mlp(width, depth, ctx.device, seed=seed_for(ID, "weights", 0, ctx.secret) % 2**31)


def _x(ctx, purpose: str, index: int, batch: int | None = None) -> torch.Tensor:
    width, _, default = CONFIGS[ctx.size]
    gen = generator(ID, purpose, index, ctx.secret, ctx.device)
    return torch.randn(batch or default, width, generator=gen, device=ctx.device)


def _make_step(ns, ctx, model):
    """The learner's step; on a CPU, "needs a CUDA GPU" once their code has run (an unwritten stub fails)."""
    from autograder.grader import NeedsGPU

    _, _, batch = CONFIGS[ctx.size]
    try:
        with torch.no_grad():
            step = ns["make_graphed_step"](model, batch)
    except NotImplementedError:
        raise CheckFailed("make_graphed_step is not written yet (it raises NotImplementedError)",
                          "replace `raise NotImplementedError()` with your code") from None
    except Exception as err:
        if not ctx.cuda:
            raise NeedsGPU("CUDA graphs need a CUDA GPU (this machine has none): torch.cuda.CUDAGraph cannot "
                           "be created here") from None
        raise CheckFailed(f"make_graphed_step(model, {batch}) raised {type(err).__name__}: "
                          f"{str(err).strip().splitlines()[0] if str(err).strip() else ''}",
                          _WARMUP_HINT if "capture" in str(err) else "") from err
    if not ctx.cuda:
        raise NeedsGPU("CUDA graphs need a CUDA GPU (this machine has none)")
    if not callable(step):
        raise CheckFailed(f"make_graphed_step must return a function step(x), got {type(step).__name__}")
    return step


_WARMUP_HINT = ("warm up before capturing: run the model a few times on a side stream "
                "(s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream()); with torch.cuda.stream(s): "
                "...; torch.cuda.current_stream().wait_stream(s)), so that lazy initialisation (cuBLAS handles, "
                "workspaces) happens outside the capture")


def correctness_cases(ctx) -> list[Case]:
    return [Case(f"fresh input {i + 1}", (_x(ctx, "correctness", i),)) for i in range(6)]


def check_fresh_inputs(ns, ctx):
    model, reference = _model(ctx), _model(ctx)
    step = _make_step(ns, ctx, model)
    with torch.no_grad():
        n, _ = run_trials(step, reference, correctness_cases(ctx), TOL, "step")
    return f"matches the eager model on {n} fresh inputs, each a new tensor"


def check_outputs_stay_valid(ns, ctx):
    model, reference = _model(ctx), _model(ctx)
    step = _make_step(ns, ctx, model)
    with torch.no_grad():
        try:
            n, _ = run_trials(step, reference, correctness_cases(ctx), TOL, "step", recheck_previous=True)
        except CheckFailed as err:
            if "after the next call" not in err.reason:
                raise
            raise CheckFailed(err.reason, "the graph writes every replay into the same output buffer: return a "
                              "copy (static_out.clone()), which belongs to the caller") from None
    return f"each of {n} outputs still held its own values after the next call"


def check_batch_size(ns, ctx):
    model = _model(ctx)
    step = _make_step(ns, ctx, model)
    _, _, batch = CONFIGS[ctx.size]
    for other in (1, 2 * batch):
        x = _x(ctx, "batch", other, other)
        try:
            with torch.no_grad():
                out = step(x)
        except ValueError as err:
            if str(batch) not in str(err):
                raise CheckFailed(f"a batch of {other} raised ValueError({str(err)!r}), which does not say which "
                                  f"batch size the graph takes ({batch})",
                                  f"say it: raise ValueError(f'this graph takes a batch of {{batch}}, got ...')") \
                    from None
            continue
        except Exception as err:
            raise CheckFailed(f"a batch of {other} raised {type(err).__name__} from deep inside: "
                              f"{str(err).strip().splitlines()[0] if str(err).strip() else ''}",
                              "check x.shape before copying into the static buffer and raise ValueError") from None
        shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
        raise CheckFailed(f"a batch of {other} was accepted (output {shape}): a CUDA graph replays the shapes it "
                          f"captured, so that output is not model(x)" + (" — a smaller batch broadcasts into the "
                          "static buffer silently" if other < batch else ""),
                          "check x.shape before copying into the static buffer and raise ValueError")
    return f"batches of 1 and {2 * batch} raise ValueError naming the batch size {batch}"


_CHILD = """
import json, sys
import torch
from autograder.models import make_mlp

captures = []
_begin = torch.cuda.CUDAGraph.capture_begin

def _counting(self, *args, **kwargs):
    captures.append(1)
    return _begin(self, *args, **kwargs)

torch.cuda.CUDAGraph.capture_begin = _counting
width, depth, batch, seed = {width}, {depth}, {batch}, {seed}
model, reference = make_mlp(width, depth, "cuda", seed=seed), make_mlp(width, depth, "cuda", seed=seed)
xs = [torch.randn(batch, width, device="cuda", generator=torch.Generator("cuda").manual_seed(seed + i)) for i in range(3)]
result = {{"captures": 0, "graphs": 0, "error": None, "worst": None}}
try:
    with torch.no_grad():
        step = make_graphed_step(model, batch)
        outs = [step(x).clone() for x in xs]
        torch.cuda.synchronize()
        result["worst"] = max(float((o - reference(x)).abs().max()) for o, x in zip(outs, xs))
except Exception as err:
    result["error"] = type(err).__name__ + ": " + (str(err).strip().splitlines() or [""])[0]
result["captures"] = len(captures)
result["graphs"] = int(torch._dynamo.utils.counters["stats"]["unique_graphs"]) if "torch._dynamo" in sys.modules else 0
print("RESULT " + json.dumps(result))
"""


def check_fresh_process(ns, ctx):
    from autograder.submission import SubmissionError, closure_source

    model = _model(ctx)
    _make_step(ns, ctx, model)  # unwritten or CPU: reported here
    width, depth, batch = CONFIGS[ctx.size]
    try:
        source = closure_source(ns["make_graphed_step"], ns)
    except SubmissionError as err:
        raise CheckFailed(str(err)) from None
    script = source + "\n" + _CHILD.format(width=width, depth=depth, batch=batch,
                                           seed=seed_for(ID, "fresh-process", 0, ctx.secret) % 2**31)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [os.getcwd(), *sys.path] if p))
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                              timeout=FRESH_PROCESS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"in a fresh process, make_graphed_step and three calls took over "
                          f"{FRESH_PROCESS_TIMEOUT_S:g} s") from None
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise CheckFailed(f"in a fresh process, your code (shipped there with the helpers it names) did not "
                          f"finish: {tail}", "define make_graphed_step and its helpers with def at the top "
                          "level of a cell, and import what they use")
    result = json.loads(line[len("RESULT "):])
    if result["error"]:
        raise CheckFailed(f"in a fresh process, where nothing has run on the GPU yet, make_graphed_step failed: "
                          f"{result['error']}", _WARMUP_HINT if "captur" in result["error"] else "")
    if result["graphs"]:
        raise CheckFailed(f"make_graphed_step compiled {result['graphs']} graph(s) with torch.compile",
                          "this exercise is about capturing CUDA graphs by hand: torch.cuda.CUDAGraph and "
                          "torch.cuda.graph (reduce-overhead was lesson 3)")
    if not result["captures"]:
        raise CheckFailed("make_graphed_step never captured a CUDA graph (torch.cuda.CUDAGraph.capture_begin was "
                          "not called)", "capture the step: with torch.cuda.graph(g): static_out = model(static_in)")
    if result["worst"] is None or result["worst"] > TOL.atol + TOL.rtol * 10:
        raise CheckFailed(f"in a fresh process, step(x) differs from the eager model by up to {result['worst']:.3g}",
                          _WARMUP_HINT)
    return (f"in a fresh process, as its first CUDA work: {result['captures']} CUDA graph capture(s), no "
            f"torch.compile, three fresh inputs right (largest difference {result['worst']:.1e})")


def check_speed(ns, ctx):
    from autograder.speed import speed_check

    model, baseline, reference = _model(ctx), _model(ctx), _model(ctx)
    step = _make_step(ns, ctx, model)
    inputs = [(_x(ctx, "speed", i),) for i in range(4)]
    with torch.no_grad():
        return speed_check(ctx, baseline, step, inputs, tol=TOL, reference=reference, name="step",
                           expect_compiled=False)


EXERCISE = Exercise(
    id=ID,
    title="CUDA graphs by hand: capture, replay, keep outputs",
    entry_points=("make_graphed_step",),
    baseline="the eager model",
    speed_gate=1.5,
    cpu_gate=None,  # CUDA graphs exist only on a CUDA GPU; on a CPU every check says so
    checks=(
        Check("fresh_inputs", "step(x) equals model(x) for every fresh input", 2, check_fresh_inputs,
              ("make_graphed_step",), hidden=True),
        Check("outputs_stay_valid", "an output keeps its values after the next call", 2, check_outputs_stay_valid,
              ("make_graphed_step",), hidden=True),
        Check("batch_size", "another batch size raises ValueError naming the captured one", 1, check_batch_size,
              ("make_graphed_step",)),
        Check("fresh_process", "captured by hand, warmed up: works as a new process's first CUDA work", 1,
              check_fresh_process, ("make_graphed_step",), kind="structure"),
        Check("speed", "at least 1.5x faster than the eager model", 4, check_speed, ("make_graphed_step",),
              kind="speed"),
    ),
    wrong=(
        WrongApproach("eager.py", ("fresh_process", "speed"), "never captured a CUDA graph", gpu_only=True),
        WrongApproach("no_warmup.py", ("fresh_process",), "warm up", gpu_only=True),
        WrongApproach("no_copy.py", ("fresh_inputs",), "differs", gpu_only=True),
        WrongApproach("static_output.py", ("outputs_stay_valid",), "after the next call", gpu_only=True),
        WrongApproach("no_batch_check.py", ("batch_size",), "was accepted", gpu_only=True),
    ),
    hints={
        "fresh_inputs": [
            "A CUDA graph replays on the addresses it captured: copy each new x into the static input buffer "
            "(static_in.copy_(x)) before g.replay().",
        ],
        "outputs_stay_valid": [
            "Keep two outputs of your step and compare the first one with model(x1) after the second call.",
            "Every replay writes into the same static output buffer; return static_out.clone().",
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
