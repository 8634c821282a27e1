"""Exercise 02: the compile pipeline.

(a) ``GraphRecorder``: a Dynamo backend. ``GraphRecorder()`` makes one; Dynamo calls it with each captured
    ``torch.fx.GraphModule`` and its example inputs; it appends to ``self.graphs`` one mapping per graph,
    ``node.target -> count`` over the graph's ``call_function``, ``call_method`` and ``call_module``
    nodes, and returns a callable that runs the graph. Graded on hidden functions drawn from the secret
    (chains of ops, some split by a graph break) against what a trusted recorder sees.
(b) ``make_train_step(model, optimizer) -> step(x, y) -> loss``: one training step (forward, MSE loss,
    backward, ``optimizer.step()``, ``optimizer.zero_grad()``) of the op-by-op transformer blocks in
    ``autograder.models``, at least 1.5x faster than the eager :func:`train_step`, with the same loss,
    gradients and updated parameters, and the model's forward compiled as one graph (a break inside it
    splits the backward too).
"""

from __future__ import annotations

import copy
import time
from collections import Counter
from collections.abc import Mapping
from contextlib import contextmanager

import torch

from autograder.correctness import CheckFailed, Tolerance, check_not_mutated, check_tensor, generator, snapshot
from autograder.exercises.spec import Check, Exercise, WrongApproach
from autograder.models import BlockConfig, make_model, mse

ID = "02_compile_pipeline"
CONFIGS = {  # (model, batch); the smoke size keeps CPU compiles to seconds
    "smoke": (BlockConfig(dim=64, heads=2, layers=2, seq=32), 2),
    "full": (BlockConfig(dim=256, heads=4, layers=4, seq=256), 16),
}
LR = 1e-3
LOSS_TOL = Tolerance(rtol=1e-4, atol=1e-6)
# Gradients of the fused fp32 graph differ from eager by reduction order only: at most 3e-9 absolute where
# the largest gradient entry is ~1e-2 (3e-7 of it; CPU, smoke size). atol is taken relative to each
# parameter's largest gradient entry, so the check means the same whatever the loss's scale.
GRAD_RTOL, GRAD_ATOL_FRACTION = 1e-3, 1e-4
# AdamW moves each weight by about lr whatever the gradient's size: a skipped step is off by ~1e-3.
PARAM_TOL = Tolerance(rtol=0.0, atol=1e-4)


def train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor,
               y: torch.Tensor) -> torch.Tensor:
    """The eager baseline. x, y: (B, T, dim) -> the loss before the update, a 0-dim tensor."""
    loss = mse(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def make_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=LR)


# ---- (a) GraphRecorder: hidden functions drawn from the secret ----

def _half(x):
    return x * 0.5


def _shift(x):
    return x + 1.0


def _neg(x):
    return x.neg()


def _square(x):
    return x * x


OPS = (torch.sin, torch.cos, torch.tanh, torch.relu, torch.sigmoid, torch.abs, _half, _shift, _neg, _square)


def _chain(ops):
    def run(x):
        for op in ops:  # a Python loop over a list: Dynamo unrolls it into the graph
            x = op(x)
        return x
    return run


def _with_break(first, second):
    def fn(x):
        x = first(x)
        torch._dynamo.graph_break()
        return second(x)
    return fn


def _with_branch(first, second):
    def fn(x):
        x = first(x)
        if x.sum() > 0:  # data-dependent: Dynamo breaks the graph here
            return second(x)
        return -second(x)
    return fn


def hidden_functions(ctx) -> list[tuple[str, object, int]]:
    """(description, function, graphs a recorder must see): a plain chain, a chain split by an explicit
    ``graph_break()``, and one split by a data-dependent branch, each with ops drawn from the secret."""
    gen = generator(ID, "recorder", 0, ctx.secret)

    def ops(n):
        return [OPS[int(i)] for i in torch.randint(len(OPS), (n,), generator=gen)]

    return [("a chain of 5 ops", _chain(ops(5)), 1),
            ("two chains with torch._dynamo.graph_break() between them", _with_break(_chain(ops(3)), _chain(ops(4))), 2),
            ("a chain, then `if x.sum() > 0:` (a data-dependent branch)", _with_branch(_chain(ops(2)), _chain(ops(3))), 2)]


def target_counts(gm: torch.fx.GraphModule) -> Counter:
    """The contract: node.target -> count over call_function, call_method and call_module nodes."""
    return Counter(n.target for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module"))


class _TrustedRecorder:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(target_counts(gm))
        return gm.forward


def _name(target) -> str:
    if isinstance(target, str):
        return repr(target)
    module = getattr(target, "__module__", "") or ""
    name = getattr(target, "__name__", str(target))
    return f"operator.{name}" if module in ("_operator", "operator") else f"{module}.{name}".lstrip(".")


def _describe_counts(counts: Mapping) -> str:
    return "{" + ", ".join(f"{_name(k)}: {v}" for k, v in counts.items()) + "}"


def _record(ns, description, fn, x):
    """Compile fn with the student's recorder and with the trusted one, from a clean Dynamo cache each."""
    torch._dynamo.reset()  # the hidden functions share code objects: without this the second compile is cached
    truth = _TrustedRecorder()
    torch.compile(fn, backend=truth)(x.clone())
    torch._dynamo.reset()
    try:
        recorder = ns["GraphRecorder"]()
    except Exception as err:
        raise CheckFailed(f"GraphRecorder() raised {type(err).__name__}: {err}",
                          "GraphRecorder() takes no arguments and sets self.graphs = []") from err
    try:
        out = torch.compile(fn, backend=recorder)(x.clone())
    except Exception as err:
        raise CheckFailed(f"compiling {description} with your GraphRecorder raised {type(err).__name__}: "
                          f"{str(err).splitlines()[0] if str(err) else ''}",
                          "__call__(self, gm, example_inputs) must return a callable, e.g. gm.forward") from err
    finally:
        torch._dynamo.reset()
    check_tensor(out, fn(x.clone()), Tolerance(rtol=1e-6, atol=1e-6),
                 f"the result of {description} compiled with your recorder")
    graphs = getattr(recorder, "graphs", None)
    if not isinstance(graphs, list):
        raise CheckFailed(f"GraphRecorder().graphs must be a list (one entry per graph), got {type(graphs).__name__}",
                          "set self.graphs = [] in __init__ and append to it in __call__")
    return graphs, truth.graphs


def _inputs_for_recorder(ctx):
    gen = generator(ID, "recorder-input", 0, ctx.secret)
    return torch.randn(64, generator=gen)


def check_recorder_graphs(ns, ctx):
    x = _inputs_for_recorder(ctx)
    seen = []
    for description, fn, expected in hidden_functions(ctx):
        graphs, truth = _record(ns, description, fn, x)
        if len(truth) != expected:  # the grader's own premise; a torch version that differs must be noticed
            raise RuntimeError(f"grader: {description} gave {len(truth)} graphs on torch {torch.__version__}, "
                               f"expected {expected}")
        if len(graphs) != len(truth):
            raise CheckFailed(f"for {description} Dynamo handed your backend {len(truth)} graph(s), but "
                              f"GraphRecorder().graphs has {len(graphs)} entries",
                              "append one entry per call of __call__: Dynamo calls the backend once per graph")
        seen.append(f"{description}: {len(graphs)}")
    return "graph counts right for " + "; ".join(seen)


def check_recorder_ops(ns, ctx):
    x = _inputs_for_recorder(ctx)
    total = 0
    for description, fn, _ in hidden_functions(ctx):
        graphs, truth = _record(ns, description, fn, x)
        if len(graphs) != len(truth):
            raise CheckFailed(f"for {description} your recorder has {len(graphs)} graph entries, Dynamo made "
                              f"{len(truth)}", "fix the graph count first (the check above)")
        for i, (got, want) in enumerate(zip(graphs, truth, strict=True)):
            if not isinstance(got, Mapping):
                raise CheckFailed(f"graphs[{i}] must map node.target -> count (a dict or Counter), "
                                  f"got {type(got).__name__}")
            got_counts = {k: v for k, v in got.items() if v}
            if got_counts != dict(want):
                raise CheckFailed(
                    f"for {description}, graph {i}: your recorder counted {_describe_counts(got_counts)}, but "
                    f"the graph holds {_describe_counts(want)}",
                    "count node.target over nodes whose node.op is call_function, call_method or call_module "
                    "(placeholders and outputs are not ops)")
            total += sum(want.values())
    return f"op counts right for every graph ({total} ops in all)"


# ---- (b) a training step ----

def _batch(ctx, purpose, index, batch, seq):
    cfg, _ = CONFIGS[ctx.size]
    gen = generator(ID, purpose, index, ctx.secret, ctx.device)
    return tuple(torch.randn(batch, seq, cfg.dim, generator=gen, device=ctx.device) for _ in range(2))


def _models(ctx):
    """The reference (eager) and the student's copy: the same weights, each with its own AdamW."""
    cfg, _ = CONFIGS[ctx.size]
    ref = make_model(cfg, ctx.device, seed=7)
    student = make_model(cfg, ctx.device, seed=7)
    return (ref, make_optimizer(ref)), (student, make_optimizer(student))


def _make_step(ns, model, optimizer):
    try:
        step = ns["make_train_step"](model, optimizer)
    except NotImplementedError:
        raise CheckFailed("make_train_step is not written yet (it raises NotImplementedError)",
                          "replace `raise NotImplementedError()` with your code") from None
    except Exception as err:
        raise CheckFailed(f"make_train_step(model, optimizer) raised {type(err).__name__}: {err}") from err
    if not callable(step):
        raise CheckFailed(f"make_train_step must return a function step(x, y), got {type(step).__name__}")
    return step


def _trial(step, ref, student, x, y, what):
    """One step of each from the same weights: loss, every gradient and every updated weight must match."""
    (ref_model, ref_opt), (model, optimizer) = ref, student
    with torch.no_grad():  # start from the same weights and the same optimizer state
        for p, q in zip(model.parameters(), ref_model.parameters(), strict=True):
            p.copy_(q)
    ref_opt.load_state_dict(copy.deepcopy(optimizer.state_dict()))  # a deep copy: load_state_dict may alias
    expected_loss = mse(ref_model(x.clone()), y.clone())
    expected_loss.backward()
    expected_grads = [p.grad.clone() for p in ref_model.parameters()]
    ref_opt.step()
    ref_opt.zero_grad(set_to_none=True)

    params = list(model.parameters())
    grads: dict[int, torch.Tensor] = {}

    def keep(i):
        return lambda p: grads.__setitem__(i, p.grad.detach().clone())

    hooks = [p.register_post_accumulate_grad_hook(keep(i)) for i, p in enumerate(params)]
    before = snapshot((x, y))
    try:
        loss = step(x, y)
    except CheckFailed:
        raise
    except Exception as err:
        raise CheckFailed(f"step(x, y) raised {type(err).__name__} on {what}: {err}") from err
    finally:
        for h in hooks:
            h.remove()
    check_not_mutated((x, y), before, "step")
    if isinstance(loss, torch.Tensor):
        loss = loss.detach().clone()
    check_tensor(loss, expected_loss.detach(), LOSS_TOL, f"the loss step(x, y) returned on {what}")
    names = [name for name, _ in model.named_parameters()]
    for i, (name, want) in enumerate(zip(names, expected_grads, strict=True)):
        if i not in grads:
            raise CheckFailed(f"on {what} no gradient reached parameter {name}",
                              "call loss.backward() on the loss of the model's output, inside step")
        tol = Tolerance(rtol=GRAD_RTOL, atol=GRAD_ATOL_FRACTION * float(want.abs().max()))
        check_tensor(grads[i], want, tol, f"the gradient of {name} on {what}")
    for name, p, q in zip(names, params, ref_model.parameters(), strict=True):
        try:
            check_tensor(p.detach(), q.detach(), PARAM_TOL, f"parameter {name} after the step on {what}")
        except CheckFailed as err:
            raise CheckFailed(err.reason, "call optimizer.step() on the optimizer you were given, once per step, "
                                          "after backward (and zero the gradients after it)") from None


def correctness_batches(ctx) -> list[tuple[str, tuple]]:
    """Five steps: the timing shape four times with fresh values, and one batch size and length never shown."""
    cfg, batch = CONFIGS[ctx.size]
    shapes = [(batch, cfg.seq)] * 2 + [(batch // 2 + 1, cfg.seq // 2)] + [(batch, cfg.seq)] * 2
    return [(f"a batch of shape {(b, t, cfg.dim)} (step {i + 1})", _batch(ctx, "correctness", i, b, t))
            for i, (b, t) in enumerate(shapes)]


def check_train_correct(ns, ctx):
    ref, student = _models(ctx)
    step = _make_step(ns, *student)
    batches = correctness_batches(ctx)
    first_call_s = None
    for what, (x, y) in batches:
        start = time.perf_counter()
        _trial(step, ref, student, x, y, what)
        first_call_s = time.perf_counter() - start if first_call_s is None else first_call_s
    return (f"loss, gradients of all {len(list(student[0].parameters()))} parameters and the AdamW update match "
            f"eager over {len(batches)} steps; the first step (with its compile) took {first_call_s:.1f} s",
            {"first_call_s": first_call_s})


@contextmanager
def _observed(ctx):
    """Compile events of the block, from the grading's capture (a nested capture would reset its logs)."""
    from autograder.structure import capture_compile_events

    if ctx.events is None:
        with capture_compile_events() as events:
            yield events
        return
    start = ctx.events.snapshot()
    n_breaks = len(ctx.events.graph_breaks)
    window = type(start)()
    yield window
    now = ctx.events.snapshot()
    window.graphs = now.graphs - start.graphs
    window.kernels = now.kernels - start.kernels
    window.graph_breaks = ctx.events.graph_breaks[n_breaks:]


def check_one_graph(ns, ctx):
    torch._dynamo.reset()  # compile afresh: breaks are only reported when a graph is compiled
    _, (model, optimizer) = _models(ctx)
    cfg, batch = CONFIGS[ctx.size]
    with _observed(ctx) as events:
        step = _make_step(ns, model, optimizer)
        for i in range(2):
            step(*_batch(ctx, "structure", i, batch, cfg.seq))
    if events.graphs == 0:
        raise CheckFailed("nothing was compiled while step(x, y) ran: the training step runs eagerly",
                          "compile the model inside make_train_step: compiled = torch.compile(model)")
    inside = [b for b in events.graph_breaks if b.inside_forward]
    if inside:
        raise CheckFailed(
            f"{len(inside)} graph break(s) inside the model's forward: {'; '.join(str(b).rstrip('.') for b in inside[:3])}. Each "
            "break splits the forward into separate graphs, and AOTAutograd builds a separate backward for each",
            "move checks, prints and .item() calls out of the forward, or express them with tensor ops")
    outside = len(events.graph_breaks)
    return (f"the model's forward compiled without a break: {events.graphs} graph(s), {events.kernels} generated "
            f"kernel(s)" + (f"; {outside} break(s) outside the forward (backward/optimizer), allowed" if outside
                            else ""))


def check_train_speed(ns, ctx):
    from autograder.speed import speed_check

    cfg, batch = CONFIGS[ctx.size]
    (ref_model, ref_opt), (model, optimizer) = _models(ctx)
    step = _make_step(ns, model, optimizer)
    inputs = [_batch(ctx, "speed", i, batch, cfg.seq) for i in range(3)]

    def baseline(x, y):
        return train_step(ref_model, ref_opt, x, y)

    def timed_loss(out, index):
        if not isinstance(out, torch.Tensor) or out.dim() != 0 or not bool(torch.isfinite(out)):
            raise CheckFailed(f"during timing step(x, y) returned {out!r}, not a finite 0-dim loss tensor")

    message, details = speed_check(ctx, baseline, step, inputs, tol=LOSS_TOL, name="step", check_output=timed_loss)
    # After timing, the step must still train exactly like eager (no shortcut once timing starts).
    ref, _ = _models(ctx)
    x, y = _batch(ctx, "after-timing", 0, batch, cfg.seq)
    _trial(step, ref, (model, optimizer), x, y, "a batch after timing")
    return message, details


EXERCISE = Exercise(
    id=ID,
    title="The compile pipeline: a recording backend and a compiled training step",
    entry_points=("GraphRecorder", "make_train_step"),
    baseline="the eager training step",
    speed_gate=1.5,
    # No CPU gate: compiled forward+backward of small MLPs measured 0.89-0.96x on 2 CPU cores (FACTS.md).
    cpu_gate=None,
    checks=(
        Check("recorder_graphs", "GraphRecorder records one entry per graph", 2, check_recorder_graphs,
              ("GraphRecorder",), kind="structure"),
        Check("recorder_ops", "GraphRecorder counts each graph's ops by target", 3, check_recorder_ops,
              ("GraphRecorder",), kind="structure", hidden=True),
        Check("train_step_correct", "the training step matches eager: loss, gradients, update", 3,
              check_train_correct, ("make_train_step",), hidden=True),
        Check("train_step_one_graph", "the model's forward compiles without a graph break", 2, check_one_graph,
              ("make_train_step",), kind="structure"),
        Check("train_step_speed", "the training step is at least 1.5x faster than eager", 4, check_train_speed,
              ("make_train_step",), kind="speed"),
    ),
    wrong=(
        WrongApproach("recorder_overwrites.py", ("recorder_graphs", "recorder_ops"), "graph"),
        WrongApproach("recorder_no_methods.py", ("recorder_ops",), "your recorder counted"),
        WrongApproach("eager.py", ("train_step_one_graph",), "nothing was compiled",
                      gpu_fails=("train_step_speed",)),
        WrongApproach("aot_eager.py", ("train_step_speed",), "generated no kernels", gpu_only=True),
        WrongApproach("forward_graph_break.py", ("train_step_one_graph",), "inside the model's forward"),
        WrongApproach("no_optimizer_step.py", ("train_step_correct",), "after the step"),
    ),
    hints={
        "recorder_graphs": [
            "Dynamo calls your backend once for every graph it captures; a graph break means two graphs.",
            "In __call__, append one entry to self.graphs, then return gm.forward so the graph still runs.",
        ],
        "recorder_ops": [
            "Walk gm.graph.nodes; each node has .op ('placeholder', 'call_function', 'call_method', "
            "'call_module', 'get_attr', 'output') and .target.",
            "collections.Counter(n.target for n in gm.graph.nodes if n.op in (...)) is the whole count.",
        ],
        "train_step_correct": [
            "step(x, y) must do what train_step does: forward, mse loss, backward, optimizer.step(), zero_grad.",
            "Return the loss computed before the update, as a 0-dim tensor.",
        ],
        "train_step_one_graph": [
            "Run torch._dynamo.explain or TORCH_LOGS=graph_breaks on your compiled model to see where it breaks.",
            "A Python `if` on a tensor value, print() or .item() inside forward breaks the graph.",
        ],
        "train_step_speed": [
            "The eager step launches a kernel per op of every RMSNorm, RoPE, softmax and SwiGLU, forward and "
            "backward; torch.compile fuses them.",
            "Compile the model: torch.compile(model). The default backend, inductor, generates the fused kernels.",
            "Compiling optimizer.step() too (a function that calls it, wrapped in torch.compile) fuses AdamW.",
        ],
    },
)
