"""Exercise 04: graph breaks.

``FixedBlock``: a subclass of ``autograder.models.BrokenBlock`` whose ``forward`` computes the same function
with no graph break. The grader builds a stack of blocks (``make_block_stack``: d=512, depth 4; input
(16, 256, 512) float32) with BrokenBlock's weights and compiles it itself with ``torch.compile(model)``:

- no_graph_breaks: ``fullgraph=True`` compiles it, and the default compile makes exactly one graph, with no
  graph break and no recompile, over inputs that take both branches;
- outputs_match: eager and compiled, it matches the original stack on inputs of both signs (so dropping a
  branch, or computing something else only while compiling, fails);
- speed: compiled, it is at least 1.5x faster than the original stack in eager mode.
"""

from __future__ import annotations

import torch

from autograder.correctness import Case, CheckFailed, Tolerance, generator, run_trials
from autograder.exercises.spec import Check, Exercise, WrongApproach
from autograder.models import BrokenBlock, make_block_stack
from autograder.structure import capture_compile_events

ID = "04_graph_breaks"
CONFIGS = {  # (d, depth, batch, seq)
    "smoke": (64, 4, 2, 16),
    "full": (512, 4, 16, 256),
}
# fp32, same ops in a different order (fused reductions): 1e-5 absolute from eager on outputs of size ~2
# (H200 and CPU). Dropping a branch is off by ~1.
TOL = Tolerance(rtol=1e-4, atol=1e-4)


def _stacks(ns, ctx, n: int = 1) -> list[torch.nn.Module]:
    """``n`` stacks of the learner's FixedBlock, each with BrokenBlock's weights, after ``torch._dynamo.reset()``
    (each check compiles on its own)."""
    cls = ns.get("FixedBlock")
    if not isinstance(cls, type) or not issubclass(cls, torch.nn.Module):
        raise CheckFailed(f"FixedBlock must be a class (a subclass of BrokenBlock), got {type(cls).__name__}",
                          "class FixedBlock(BrokenBlock): def forward(self, x): ...")
    d, depth, _, _ = CONFIGS[ctx.size]
    torch._dynamo.reset()
    try:
        return [make_block_stack(cls, d, depth, ctx.device) for _ in range(n)]
    except Exception as err:
        raise CheckFailed(f"building a stack of FixedBlock({d}) with BrokenBlock's weights raised "
                          f"{type(err).__name__}: {str(err).splitlines()[0]}",
                          "keep BrokenBlock's __init__ and parameters; only forward changes") from None


def _reference(ctx) -> torch.nn.Module:
    d, depth, _, _ = CONFIGS[ctx.size]
    return make_block_stack(BrokenBlock, d, depth, ctx.device)


def _x(ctx, purpose: str, index: int, sign: float) -> torch.Tensor:
    """An input whose mean has the given sign (|offset| 0.2..1.0): every block then takes that sign's branch."""
    _, _, batch, seq = CONFIGS[ctx.size]
    d = CONFIGS[ctx.size][0]
    gen = generator(ID, purpose, index, ctx.secret, ctx.device)
    offset = sign * (0.2 + 0.8 * torch.rand((), generator=gen, device=ctx.device))
    return torch.randn(batch, seq, d, generator=gen, device=ctx.device) + offset


def _inputs(ctx, purpose: str, n: int) -> list[torch.Tensor]:
    return [_x(ctx, purpose, i, 1.0 if i % 2 == 0 else -1.0) for i in range(n)]


def _call(model, x):
    try:
        return model(x)
    except NotImplementedError:
        raise CheckFailed("FixedBlock.forward is not written yet (it raises NotImplementedError)",
                          "replace `raise NotImplementedError()` with your forward") from None


def _eager_first(model, x) -> None:
    """Run the stack once in eager mode, so that an unwritten or crashing forward is reported as such, not as
    whatever Dynamo makes of the exception."""
    try:
        _call(model, x)
    except CheckFailed:
        raise
    except Exception as err:
        raise CheckFailed(f"your stack raised {type(err).__name__} in eager mode: {err}",
                          "run make_block_stack(FixedBlock, 64, 2)(x) in a cell of its own and read the "
                          "traceback") from None


def check_no_graph_breaks(ns, ctx):
    """fullgraph=True first (it names the first break and where), then the default compile, counted."""
    model, = _stacks(ns, ctx)
    xs = _inputs(ctx, "structure", 3)
    with torch.no_grad():
        _eager_first(model, xs[0])
        strict = torch.compile(model, fullgraph=True)
        try:
            for x in xs[:2]:
                _call(strict, x)
        except CheckFailed:
            raise
        except Exception as err:
            reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise CheckFailed(f"torch.compile(model, fullgraph=True) stopped at a graph break: {reason}",
                              _where(err)) from None
        torch._dynamo.reset()
        compiled = torch.compile(model)
        with capture_compile_events() as events:
            for x in xs:
                _call(compiled, x)
        events = events.snapshot()
    if events.graphs != 1 or events.graph_breaks or events.recompiles:
        found = "; ".join(str(b) for b in events.graph_breaks[:3]) or "; ".join(str(r) for r in events.recompiles[:2])
        raise CheckFailed(
            f"torch.compile(model) made {events.graphs} graph(s) with {len(events.graph_breaks)} graph break(s) "
            f"and {len(events.recompiles)} recompile(s) over {len(xs)} inputs, expected 1 graph, no graph break, "
            f"no recompile" + (f": {found}" if found else ""),
            "fullgraph=True accepts some things the default compile still breaks on (a Python scalar from "
            ".item() since torch 2.10): keep every value a tensor")
    return (f"fullgraph=True compiles it; torch.compile(model) made 1 graph, no break, no recompile over "
            f"{len(xs)} inputs of both signs ({events.kernels} generated kernels)", {"events": events.summary()})


def _where(err: Exception) -> str:
    """The learner's line that broke the graph, from the exception's traceback or Dynamo's message."""
    import traceback

    text = "".join(traceback.format_exception(err))
    for line in reversed(text.splitlines()):
        if "in forward" in line and "FixedBlock" not in line and "torch/" not in line:
            return f"Dynamo stopped here: {line.strip()}. Lesson 4 shows a tensor-only fix for each kind of break"
    return "run the cell with TORCH_LOGS='graph_breaks' or torch._dynamo.explain(model)(x) to see each break"


def correctness_cases(ctx) -> list[Case]:
    """Four inputs, two with a positive mean and two with a negative one: both branches in every block."""
    return [Case(f"an input with a {'positive' if i % 2 == 0 else 'negative'} mean (case {i + 1})", (x,))
            for i, x in enumerate(_inputs(ctx, "correctness", 4))]


def check_outputs_match(ns, ctx):
    eager, for_compile = _stacks(ns, ctx, 2)
    reference = _reference(ctx)
    cases = correctness_cases(ctx)
    with torch.no_grad():
        n, _ = run_trials(lambda x: _call(eager, x), reference, cases, TOL, "your stack in eager mode")
        compiled = torch.compile(for_compile)
        try:
            run_trials(lambda x: _call(compiled, x), reference, cases, TOL,
                       "torch.compile(model) of your stack")
        except CheckFailed as err:
            raise CheckFailed(f"compiled, your stack gives other results than in eager mode: {err.reason}",
                              "the compiled path must compute what the eager path computes: no "
                              "torch.compiler.is_compiling() branch that changes the math") from None
    return f"eager and compiled, matches the original on {n} inputs, both branches taken (rtol={TOL.rtol:g}, atol={TOL.atol:g})"


def check_speed(ns, ctx):
    from autograder.speed import speed_check

    model, = _stacks(ns, ctx)
    original, reference = _reference(ctx), _reference(ctx)
    inputs = [(x,) for x in _inputs(ctx, "speed", 3)]
    with torch.no_grad():
        _eager_first(model, inputs[0][0])
        compiled = torch.compile(model)
        return speed_check(ctx, original, compiled, inputs, tol=TOL, reference=reference,
                           name="torch.compile(model) of your stack")


EXERCISE = Exercise(
    id=ID,
    title="Graph breaks: find them, remove them",
    entry_points=("FixedBlock",),
    baseline="the original BrokenBlock stack in eager mode",
    speed_gate=1.5,
    cpu_gate=None,  # the gate is a GPU figure; on a CPU the structure and correctness checks carry the grade
    checks=(
        Check("no_graph_breaks", "one graph, no graph break, no recompile (fullgraph=True compiles it)", 3,
              check_no_graph_breaks, ("FixedBlock",), kind="structure", hidden=True),
        Check("outputs_match", "eager and compiled, the outputs match the original for both branches", 3,
              check_outputs_match, ("FixedBlock",), hidden=True),
        Check("speed", "compiled, at least 1.5x faster than the original in eager mode", 4, check_speed,
              ("FixedBlock",), kind="speed"),
    ),
    wrong=(
        WrongApproach("original.py", ("no_graph_breaks",), "graph break", gpu_fails=("speed",)),
        WrongApproach("disabled.py", ("no_graph_breaks",), "graph break", gpu_fails=("speed",)),
        WrongApproach("item_kept.py", ("no_graph_breaks",), "graph break"),
        WrongApproach("one_branch.py", ("outputs_match",), "differs"),
        WrongApproach("hidden_branch.py", ("outputs_match",), "compiled"),
    ),
    hints={
        "no_graph_breaks": [
            "Compile your stack with torch.compile(model, fullgraph=True): the error names the first break.",
            "A Python `if` on a tensor needs the tensor's value on the host. torch.where(cond, a, b) computes "
            "both sides and picks per element, inside the graph.",
            "Keep the spread a tensor: h.std().clamp_min(1e-3) instead of max(h.std().item(), 1e-3).",
            "Log only when not compiling: `if not torch.compiler.is_compiling(): ...`.",
        ],
        "outputs_match": [
            "Both branches matter: inputs with a negative mean take SiLU, positive ones GELU.",
            "Compare your block with BrokenBlock on x + 0.5 and x - 0.5, eager and compiled.",
        ],
        "speed": [
            "With no break, Inductor fuses each block's pointwise and reduction ops into a few kernels, and no "
            ".item() waits for the GPU.",
        ],
    },
)
