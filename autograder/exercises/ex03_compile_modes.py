"""Exercise 03: compile modes.

``make_predict(model) -> predict(x) -> y``: serve small-batch inference of a launch-bound network (the residual
MLP of ``autograder.models.make_mlp``: 16 blocks of width 512, batch 16, float32) at least 1.5x faster than
the **default-mode** compile ``torch.compile(model)``. The serving loop calls ``predict`` under
``torch.no_grad()`` and may keep its outputs: an output must keep its values after later calls. The first
calls (compile, CUDA-graph warm-up and recording) must fit a compile budget.
"""

from __future__ import annotations

import torch

from autograder.correctness import Case, CheckFailed, Tolerance, check_outputs, generator, run_trials, seed_for
from autograder.exercises.spec import Check, Exercise, WrongApproach
from autograder.models import make_mlp
from autograder.timing import _perf_counter, clone_outputs, synchronize

ID = "03_compile_modes"
CONFIGS = {  # (width, depth, batch); the smoke size keeps CPU compiles to seconds
    "smoke": (64, 4, 4),
    "full": (512, 16, 16),
}
# fp32 with fused LayerNorm/GELU: at most 3e-6 absolute from eager on outputs of size ~1 (H200, every mode);
# TF32 or half precision is off by 1e-3 or more.
TOL = Tolerance(rtol=1e-4, atol=5e-5)
# The first three calls of a fresh predictor. Measured cold on an H200: reduce-overhead 3.6 s, max-autotune
# 26.8 s (its GEMM autotuning): a deliberate choice fits; an endless search does not.
COMPILE_BUDGET_S = 60.0
STAY_VALID_CALLS = 6


def _model(ctx, seed_purpose: str = "weights") -> torch.nn.Module:
    width, depth, _ = CONFIGS[ctx.size]
    return make_mlp(width, depth, ctx.device, seed=seed_for(ID, seed_purpose, 0, ctx.secret) % 2**31)


def _x(ctx, purpose: str, index: int, batch: int | None = None) -> torch.Tensor:
    width, _, default_batch = CONFIGS[ctx.size]
    gen = generator(ID, purpose, index, ctx.secret, ctx.device)
    return torch.randn(batch or default_batch, width, generator=gen, device=ctx.device)


def _make_predict(ns, model):
    """A fresh predictor, after ``torch._dynamo.reset()``: each check compiles on its own, so one check's
    graphs (and the recompile limit) never carry into the next."""
    torch._dynamo.reset()
    try:
        predict = ns["make_predict"](model)
    except NotImplementedError:
        raise CheckFailed("make_predict is not written yet (it raises NotImplementedError)",
                          "replace `raise NotImplementedError()` with your code") from None
    except Exception as err:
        raise CheckFailed(f"make_predict(model) raised {type(err).__name__}: {err}") from err
    if not callable(predict):
        raise CheckFailed(f"make_predict must return a function predict(x), got {type(predict).__name__}")
    return predict


def check_compile_budget(ns, ctx):
    model = _model(ctx)
    with torch.no_grad():
        start = _perf_counter()
        predict = _make_predict(ns, model)
        for i in range(3):  # compile, then (reduce-overhead) CUDA-graph warm-up and recording
            predict(_x(ctx, "budget", i))
        synchronize(ctx.device)
        seconds = _perf_counter() - start
    if seconds > COMPILE_BUDGET_S:
        raise CheckFailed(
            f"make_predict and the first three calls took {seconds:.1f} s, over the compile budget of "
            f"{COMPILE_BUDGET_S:g} s", "max-autotune's GEMM search costs tens of seconds per distinct matmul "
            "shape; reduce-overhead gets the launch-bound speedup at a fraction of the compile time")
    return (f"make_predict and the first three calls took {seconds:.1f} s (budget {COMPILE_BUDGET_S:g} s; "
            "Inductor's on-disk caches may already be warm)", {"first_call_s": seconds})


def correctness_cases(ctx) -> list[Case]:
    """The serving batch twice (fresh values), then three batch sizes drawn from the secret, never shown."""
    _, _, batch = CONFIGS[ctx.size]
    gen = generator(ID, "batches", 0, ctx.secret)
    sizes = [batch, batch] + [int(b) for b in torch.randint(1, 4 * batch, (3,), generator=gen)]
    return [Case(f"a batch of {b} (trial {i + 1})", (_x(ctx, "correctness", i, b),)) for i, b in enumerate(sizes)]


def check_correct(ns, ctx):
    model, reference = _model(ctx), _model(ctx)  # the reference is the grader's own copy: same weights
    with torch.no_grad():
        predict = _make_predict(ns, model)
        n, first_s = run_trials(predict, reference, correctness_cases(ctx), TOL, "predict")
    return (f"matches the eager model on {n} batches, three of sizes never shown (rtol={TOL.rtol:g}, "
            f"atol={TOL.atol:g}); first call {first_s:.2f} s")


def check_stay_valid(ns, ctx):
    """A serving loop keeps results while it computes the next batch: every output must keep its values."""
    model, reference = _model(ctx), _model(ctx)
    kept = []
    with torch.no_grad():
        predict = _make_predict(ns, model)
        for i in range(STAY_VALID_CALLS):
            x = _x(ctx, "stay-valid", i)
            expected = reference(x.clone())
            try:
                out = predict(x)
            except Exception as err:
                raise CheckFailed(f"predict raised {type(err).__name__} on call {i + 1}: {err}") from err
            kept.append((out, expected))
            for j, (old, want) in enumerate(kept):
                try:
                    now = clone_outputs(old)
                except Exception as err:  # CUDAGraph Trees refuse to read an output they have overwritten
                    raise CheckFailed(
                        f"the output of call {j + 1}, read after later calls ({i + 1} so far), cannot be read: "
                        f"{type(err).__name__}: {str(err).splitlines()[0]}", _CLONE_HINT) from None
                try:
                    check_outputs(now, want, TOL, f"the output of call {j + 1}")
                except CheckFailed as err:
                    raise CheckFailed(f"{err.reason}, read after later calls ({i + 1} so far): it no longer "
                                      "holds its own values", _CLONE_HINT) from None
    return f"all {STAY_VALID_CALLS} outputs kept their values while later calls ran"


_CLONE_HINT = ("with mode='reduce-overhead' an output lives in the CUDA graph's memory pool and the next replay "
               "writes over it; return compiled(x).clone() (lesson 3, section on CUDA-graph outputs)")


def check_speed(ns, ctx):
    from autograder.speed import speed_check

    model, baseline_model, reference = _model(ctx), _model(ctx), _model(ctx)
    inputs = [(_x(ctx, "speed", i),) for i in range(3)]
    with torch.no_grad():
        predict = _make_predict(ns, model)  # resets Dynamo: the default compile below comes after
        default = torch.compile(baseline_model)
        return speed_check(ctx, default, predict, inputs, tol=TOL, reference=reference, name="predict")


EXERCISE = Exercise(
    id=ID,
    title="Compile modes: serve a launch-bound network",
    entry_points=("make_predict",),
    baseline="torch.compile(model) in the default mode",
    speed_gate=1.5,
    # No CPU gate: CUDA graphs, what this exercise is about, exist only on a CUDA GPU.
    cpu_gate=None,
    checks=(
        Check("compile_budget", f"make_predict and its first calls fit the {COMPILE_BUDGET_S:g} s compile budget",
              1, check_compile_budget, ("make_predict",)),
        Check("predict_correct", "predict matches the eager model, batch sizes never shown included", 3,
              check_correct, ("make_predict",), hidden=True),
        Check("outputs_stay_valid", "outputs keep their values after later calls", 2, check_stay_valid,
              ("make_predict",), hidden=True),
        Check("predict_speed", "predict is at least 1.5x faster than the default-mode compile", 4, check_speed,
              ("make_predict",), kind="speed"),
    ),
    wrong=(
        WrongApproach("eager.py", ("predict_speed",), "too slow", gpu_only=True),
        WrongApproach("default_mode.py", ("predict_speed",), "too slow", gpu_only=True),
        WrongApproach("max_autotune_no_cudagraphs.py", ("predict_speed",), "too slow", gpu_only=True),
        WrongApproach("no_clone.py", ("outputs_stay_valid",), "after later calls", gpu_only=True),
        WrongApproach("half_precision.py", ("predict_correct",), "differs"),
    ),
    hints={
        "compile_budget": [
            "Time torch.compile(model, mode=...) and its first three calls yourself (lesson 3 plots it per mode).",
        ],
        "predict_correct": [
            "predict(x) must return what model(x) returns, in float32, on x's device.",
            "Do not change the model's precision (no .half(), no TF32): the tolerance is fp32's.",
        ],
        "outputs_stay_valid": [
            "Keep two outputs of your predict and compare the first one with model(x1) after the second call.",
            "CUDA graphs replay into the same output memory; a copy (.clone()) belongs to the caller.",
        ],
        "predict_speed": [
            "At batch 16 each layer's kernels take microseconds: the time goes to launching them (launch-bound).",
            "The default mode fuses ops but still launches every kernel from Python; which mode removes the "
            "launches?",
            "mode='reduce-overhead' records the whole forward as a CUDA graph and replays it with one launch.",
        ],
    },
)
