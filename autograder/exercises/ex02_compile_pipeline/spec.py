"""Exercise 02: the compile pipeline.

(a) ``NanHunter``: a Dynamo backend that finds where a compiled function's values stop being finite.
    ``NanHunter()`` makes one; Dynamo calls it with each captured ``torch.fx.GraphModule``; what it returns runs
    the graph, and while the graph runs, the first ``call_function``/``call_method``/``call_module`` node whose
    output holds a NaN or an infinity is kept as ``self.first = (graph index, node.name)`` (graphs numbered in
    the order Dynamo hands them over; None while there is none). Graded on hidden functions drawn from the secret
    (chains of ops, some split by a graph break or a data-dependent branch), each compiled once and called twice:
    calm (all finite: ``first`` must stay None), then armed, where risky ops that all look alike, log(x - t[i])
    with the thresholds an input, go wrong or not by that call's values; against what the grader's own hunter
    finds. The compiled functions must return eager's values, NaN and each infinity in place.
(b) ``make_train_step(model, optimizer) -> step(x, y) -> loss``: one training step (``model.training_loss(x, y)``,
    backward, ``optimizer.step()``, ``optimizer.zero_grad()``) of the workload's ``Regressor``, the op-by-op
    transformer blocks of ``autograder.course.models`` whose training loss runs them one by one (MSE plus an
    activation penalty on every block's output) instead of calling ``forward``: ``torch.compile(model)`` and
    ``model.compile()`` compile nothing on that path. With whatever optimizer it is handed: the same loss and
    gradients as eager
    (checked with a plain SGD of lr=1, whose update is the gradient, read by the grader from the weights) and at
    least 1.5x faster than the eager :func:`train_step` (the grader replays every timed step itself, with its own
    AdamW). Whether the loss compiled as one graph is the worker's word: shown, not graded (a break shows in
    the speed).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from autograder.core.correctness import check_tensor, same_bits
from autograder.core.grading import GradeContext
from autograder.core.protocol import Check, CheckFailed, Exercise, Tolerance
from autograder.core.speed import SPEED_DIAGNOSTICS, SPEED_FACTS, BlockRecord, Timed, speed_check, speed_diagnosis
from autograder.core.trust import answer, judge, worker
from autograder.core.wire import Entry, Fn
from autograder.exercises.ex02_compile_pipeline.workload import (
    CONFIGS,
    OPS,
    SAFE,
    SGD_LR,
    build_model,
    copy_params,
    hidden_function,
    load_params,
    make_optimizer,
    param_count,
    train_step,
)

ID = "02_compile_pipeline"
WORKLOAD = "autograder.exercises.ex02_compile_pipeline.workload"
LOSS_TOL = Tolerance(rtol=1e-4, atol=1e-6)
# Gradients of the fused fp32 graph differ from eager by reduction order only: at most 3e-9 absolute where
# the largest gradient entry is ~1e-2 (3e-7 of it; CPU, smoke size). atol is taken relative to each
# parameter's largest gradient entry, so the check means the same whatever the loss's scale.
GRAD_RTOL, GRAD_ATOL_FRACTION = 1e-3, 1e-4
_STEPPED = f"{WORKLOAD}:stepped"
_HUNTER = (answer("what the hunter found in hidden functions drawn from the secret, against what the grader's own "
                  "hunter finds", f"{WORKLOAD}:hunt"),
           answer("the compiled hidden function's result, against eager's in the grader", f"{WORKLOAD}:hunt"))
# During timing the grader replays each block of the learner's steps eagerly from the learner's weights, but with
# its own AdamW state: the fused step and eager drift apart within a block (H200, blocks of 20 steps: losses up
# to 5e-4 relative, weights up to 4e-5 after a block). A wrong loss (another batch's) is off by 1e-2 or more; a
# skipped step or another learning rate moves weights by ~1e-3.
TIMED_LOSS_TOL = Tolerance(rtol=2e-3, atol=1e-6)
TIMED_PARAM_TOL = Tolerance(rtol=0.0, atol=3e-4)
# The block's whole update (all weights' movement over its steps), learner's against replay's, as a fraction of the
# update's norm: fp32 drift moves a few weights by up to 4e-5 and the rest by far less (CPU smoke size: 6e-7);
# gradients from a bfloat16 forward/backward move every weight a little, 5e-3 of the update after AdamW's state is
# warm, while each weight stays under TIMED_PARAM_TOL (a red team's bf16_backward_unwatched).
TIMED_UPDATE_RTOL = 1e-3


# ---- (a) NanHunter ----

class _Watch(torch.fx.Interpreter):
    """Runs a graph node by node and tells ``hunter`` the first computing node whose output is not finite."""

    def __init__(self, gm, hunter, index):
        super().__init__(gm)
        self.hunter, self.index = hunter, index

    def run_node(self, n):
        out = super().run_node(n)
        if (self.hunter.first is None and n.op in ("call_function", "call_method", "call_module")
                and isinstance(out, torch.Tensor) and out.is_floating_point() and not bool(torch.isfinite(out).all())):
            self.hunter.first = (self.index, n.name)
        return out


class TrustedHunter:
    """The contract, as the grader runs it: graphs numbered in the order Dynamo hands them over; ``first`` is
    (graph, node.name) of the first call_function/call_method/call_module node, in the order the graphs and their
    nodes ran, whose output holds a NaN or an infinity; None while there is none."""

    def __init__(self):
        self.first, self.graphs = None, 0

    def __call__(self, gm, example_inputs):
        index, self.graphs = self.graphs, self.graphs + 1
        return lambda *args: _Watch(gm, self, index).run(*args)


@dataclass(frozen=True)
class Hidden:
    """One hidden function and its two calls: thresholds ``calm`` (every value stays finite), then ``armed``."""

    description: str
    kind: str
    first: list
    second: list
    poisoned: bool  # whether the armed call turns non-finite somewhere
    x: torch.Tensor
    calm: torch.Tensor
    armed: torch.Tensor


def _armed_thresholds(first: list, second: list, x: torch.Tensor, k: int, culprit: int | None,
                      gen: torch.Generator) -> torch.Tensor:
    """Thresholds for the armed call, set op by op from the values that reach each risky op (run eagerly, in
    execution order; a branch's tail runs on the head's values either way): the first risky op's stays SAFE; those
    before ``culprit`` fall just below every value there (finite: look-alikes, in the data's own range), the
    culprit's within the values (log of a negative: NaN); after it, any. ``culprit`` None: every one below."""
    t = torch.full((k,), SAFE, device=x.device)

    def u(lo, hi):
        return lo + (hi - lo) * float(torch.rand(1, generator=gen))

    def run(chain, v):
        for entry in chain:
            if not isinstance(entry, list):
                v = OPS[entry](v)
                continue
            i = entry[1]
            if i > 0:
                if culprit is None or i < culprit:
                    t[i] = float(v.min()) - u(0.05, 0.5)
                elif i == culprit:
                    t[i] = float(torch.quantile(v, u(0.05, 0.5)))
                else:
                    t[i] = u(-1.0, 1.0)
            v = torch.log(v - t[i])
        return v

    run(second, run(first, x))
    return t


def hidden_functions(ctx: GradeContext) -> list[Hidden]:
    """Drawn from the secret. Every risky op is log(x - t[i]) with its threshold an input; each function is called
    with calm thresholds (SAFE: all finite) and then armed ones (:func:`_armed_thresholds`), all within the values
    the chain makes, so which op goes wrong first, if any, is told only by the values of that call."""
    gen = torch.Generator().manual_seed(ctx.seed("recorder"))

    def draw(high, low=0):
        return int(torch.randint(low, high, (1,), generator=gen))

    def chain(n, risky):
        steps = [draw(len(OPS)) for _ in range(n)]
        for _ in range(risky):
            at = draw(len(steps) + 1)
            steps[at:at] = [["log"], draw(len(OPS))]  # a risky op, and an op after it
        return steps

    def numbered(*chains):  # risky ops numbered in execution order, head before tail
        k = 0
        for c in chains:
            for entry in c:
                if isinstance(entry, list):
                    entry[:] = ["log", k]
                    k += 1
        return k

    plans = [("a chain of ops with three risky ones", "chain", (6, 3), (0, 0), True),
             ("two chains with torch._dynamo.graph_break() between them", "break", (3, 1), (3, 2), True),
             ("a chain, then `if x.sum() > 0:` (a data-dependent branch), then a chain", "branch", (3, 2), (3, 0),
              True),
             ("a chain whose risky ops all stay finite", "chain", (5, 2), (0, 0), False)]
    found = []
    for description, kind, (n1, r1), (n2, r2), poisoned in plans:
        first, second = chain(n1, r1), chain(n2, r2)
        k = numbered(first, second)
        # On the device the worker computes on: near a threshold log amplifies the last bits in which a GPU's sin or
        # log differ from a CPU's (H200: 1% apart at the end of a chain), so the truth is run where theirs is
        x = (2 * torch.randn(64, generator=gen)).to(ctx.device)
        culprit = draw(k, 1) if poisoned else None  # never the first risky op: its threshold stays SAFE
        armed = _armed_thresholds(first, second, x, k, culprit, gen)
        found.append(Hidden(description, kind, first, second, poisoned, x, torch.full_like(armed, SAFE), armed))
    return found


def _describe(first) -> str:
    return "None (nothing non-finite)" if first is None else f"graph {first[0]}, node {first[1]!r}"


def _same_non_finite(out: torch.Tensor, expected: torch.Tensor, what: str) -> None:
    """NaN where eager has NaN, and each infinity with its sign: check_tensor compares the finite values only."""
    for name, test in (("NaN", torch.isnan), ("+inf", torch.isposinf), ("-inf", torch.isneginf)):
        if not bool(torch.equal(test(out), test(expected))):
            raise CheckFailed(f"{what} has {name} at {int((test(out) != test(expected)).sum())} place(s) where eager "
                              f"has something else", "run the graph as it is: its non-finite values are part of "
                              "its result")


def _hunt(ctx: GradeContext, h: Hidden):
    """The learner's hunter on a hidden function (in the worker) and the grader's own (here), each called calm then
    armed: ((theirs after calm, theirs after armed), (truth after calm, truth after armed))."""
    fn = hidden_function(h.kind, h.first, h.second)
    expected = [fn(h.x.clone(), t.clone()) for t in (h.calm, h.armed)]  # eager: non-finite values included
    torch._dynamo.reset()
    truth = TrustedHunter()
    compiled = torch.compile(fn, backend=truth)
    compiled(h.x.clone(), h.calm.clone())
    truth_calm = truth.first
    compiled(h.x.clone(), h.armed.clone())
    torch._dynamo.reset()
    if truth_calm is not None or (truth.first is not None) != h.poisoned:  # the grader's premise, on this torch
        raise RuntimeError(f"grader: {h.description} gave {_describe(truth_calm)} on the calm call and "
                           f"{_describe(truth.first)} on the armed one, on torch {torch.__version__}")
    slots = ctx.put([h.x, h.calm, h.armed])
    outs = ctx.out_slots([h.x.shape, h.x.shape])
    found = ctx.call(Fn(f"{WORKLOAD}:hunt"), Entry("NanHunter"), h.kind, h.first, h.second, *slots, *outs,
                     keep=False, what=f"compiling {h.description} with your NanHunter and calling it twice",
                     hint="NanHunter() takes no arguments; __call__(self, gm, example_inputs) must return a callable "
                     "that runs the graph").value.get("value") or {}
    for out, want, call in zip(outs, expected, ("first", "second"), strict=True):
        got = ctx.view(out).clone()
        what = f"the result of {h.description} compiled with your NanHunter ({call} call)"
        check_tensor(got, want, Tolerance(rtol=1e-6, atol=1e-6), what)
        _same_non_finite(got, want, what)
    answers = []
    for call in ("calm", "armed"):
        got = found.get(call) if isinstance(found.get(call), dict) else {}
        if "bad" in got or "first" not in got:
            raise CheckFailed(f"NanHunter().first must be None or a pair (graph index, node name), got "
                              f"{got.get('bad', '?')}", "set self.first = None in __init__; when a node's output is "
                              "not finite, and nothing was found before, keep (graph index, node.name)")
        answers.append(tuple(got["first"]) if got["first"] is not None else None)
    return tuple(answers), (truth_calm, truth.first)


_CALM = ("after the first call, whose values all stay finite, your NanHunter held {theirs}: it must hold None until "
         "a graph's run makes a NaN or an infinity")


def check_hunter_graph(ctx: GradeContext):
    seen = []
    for h in hidden_functions(ctx):
        (calm, theirs), (_, truth) = _hunt(ctx, h)
        if calm is not None:
            raise CheckFailed(f"for {h.description}: " + _CALM.format(theirs=_describe(calm)), _GRAPH_HINT)
        if (theirs is None) != (truth is None) or (truth is not None and theirs[0] != truth[0]):
            raise CheckFailed(f"for {h.description}, on the second call your NanHunter found {_describe(theirs)}; "
                              + (f"the values first stop being finite in graph {truth[0]}" if truth is not None else
                                 "every value stays finite"), _GRAPH_HINT)
        seen.append("none" if truth is None else f"graph {truth[0]}")
    return "the right graph on every hidden function (" + ", ".join(seen) + "), None while all stayed finite"


def check_hunter_node(ctx: GradeContext):
    for h in hidden_functions(ctx):
        (calm, theirs), (_, truth) = _hunt(ctx, h)
        if calm is not None:
            raise CheckFailed(f"for {h.description}: " + _CALM.format(theirs=_describe(calm)), _NODE_HINT)
        if theirs != truth:
            raise CheckFailed(f"for {h.description}, on the second call your NanHunter found {_describe(theirs)}; "
                              f"the first node whose output is not finite is {_describe(truth)}", _NODE_HINT)
    return "the first non-finite node of every hidden function, and None where there is none"


_GRAPH_HINT = ("Dynamo calls your backend once per graph, in order: number the graphs as they arrive, and let what you "
               "return for a graph know its number")
_NODE_HINT = ("look at every node's output while the graph runs, not at the graph's result: a NaN can vanish again "
              "(relu and sigmoid of -inf are finite), and nodes after the first are not finite either")


# ---- (b) a training step ----

def _seed(ctx: GradeContext) -> int:
    return ctx.seed("weights") % 2**31


def _batch(ctx: GradeContext, gen: torch.Generator, batch: int, seq: int) -> tuple[torch.Tensor, torch.Tensor]:
    cfg, _ = CONFIGS[ctx.size]
    return tuple(torch.randn(batch, seq, cfg.dim, generator=gen, device=ctx.device) for _ in range(2))


def _student(ctx: GradeContext, sgd: bool = False):
    """The worker's model (the grader's weights), an optimizer on it (AdamW; ``sgd``: plain SGD with lr=1), and
    make_train_step(model, optimizer)."""
    ctx.session.reset()
    model = ctx.call(Fn(f"{WORKLOAD}:build_model"), ctx.size, _seed(ctx), str(ctx.device), what="building the model")
    opt = ctx.call(Fn(f"{WORKLOAD}:make_sgd") if sgd else Fn(f"{WORKLOAD}:make_optimizer"), model.ref,
                   what="building the optimizer")
    step = ctx.entry("make_train_step", model.ref, opt.ref, what="make_train_step(model, optimizer)")
    return model, ctx.callable_result(step, "make_train_step(model, optimizer)")


def correctness_batches(ctx: GradeContext) -> list[tuple[str, tuple]]:
    """Five steps: the timing shape four times with fresh values, and one batch size and length never shown."""
    cfg, batch = CONFIGS[ctx.size]
    shapes = [(batch, cfg.seq)] * 2 + [(batch // 2 + 1, cfg.seq // 2)] + [(batch, cfg.seq)] * 2
    return [(f"a batch of shape {(b, t, cfg.dim)} (step {i + 1})", _batch(ctx, ctx.generator("correctness", i), b, t))
            for i, (b, t) in enumerate(shapes)]


def _gradient_tolerance(grad: torch.Tensor, weight: torch.Tensor) -> Tolerance:
    """The gradient is read as the weights' change under SGD with lr=1, after the weights were rounded to float32:
    besides GRAD_ATOL_FRACTION of the largest gradient entry, a few units in the last place of the largest weight."""
    rounding = 8 * torch.finfo(torch.float32).eps * float(weight.abs().max())
    return Tolerance(rtol=GRAD_RTOL, atol=max(GRAD_ATOL_FRACTION * float(grad.abs().max()), rounding))


def check_train_correct(ctx: GradeContext):
    """Five steps with the plain SGD the grader hands over (lr=1): the weights after each step are the weights
    before it minus the gradient, so the grader reads the step's loss and its gradients out of its own memory and
    compares both with its own eager step from the same weights."""
    model, step = _student(ctx, sgd=True)
    ref_model = build_model(ctx.size, _seed(ctx), ctx.device)
    names = [name for name, _ in ref_model.named_parameters()]
    params = list(ref_model.parameters())
    n = param_count(ref_model)
    for what, (x, y) in correctness_batches(ctx):
        before = torch.empty(n, device=ctx.device)
        copy_params(ref_model, before)
        expected_loss = ref_model.training_loss(x.clone(), y.clone())
        expected_loss.backward()
        expected_grads = [p.grad.clone() for p in params]
        ref_model.zero_grad(set_to_none=True)
        mark = len(ctx.pools)
        x_slot, y_slot = ctx.put([x, y])
        loss_slot, = ctx.out_slots([()])
        params_slot, = ctx.out_slots([(n,)])
        ctx.call(Fn(f"{WORKLOAD}:stepped"), step.ref, model.ref, x_slot, y_slot, params_slot,
                 into=loss_slot, keep=False, what=f"step(x, y) on {what}")
        if not (same_bits(ctx.view(x_slot), x) and same_bits(ctx.view(y_slot), y)):
            raise CheckFailed(f"step modified its input x or y in place (on {what})",
                              "inputs belong to the caller: compute into new tensors")
        try:
            check_tensor(ctx.view(loss_slot).clone(), expected_loss.detach(), LOSS_TOL,
                         f"the loss step(x, y) returned on {what}")
        except CheckFailed as err:
            raise CheckFailed(err.reason, "the loss is model.training_loss(x, y), computed before the update: the MSE "
                              "and the model's activation penalty (model.training_loss?? shows both), returned "
                              "as a 0-dim tensor") from None
        after = ctx.view(params_slot).clone()
        implied = (before - after) / SGD_LR  # SGD: w <- w - lr * g
        offset = 0
        for name, p, want in zip(names, params, expected_grads, strict=True):
            got = implied[offset:offset + p.numel()].view_as(p)
            if bool(torch.isnan(got).any()):
                raise CheckFailed(f"on {what} the weights of {name} after the step are not numbers",
                                  "call optimizer.step() on the optimizer you were given, after backward")
            if not bool(got.any()) and bool(want.any()):
                raise CheckFailed(f"on {what} parameter {name} did not move: no gradient reached it, or the "
                                  "optimizer did not step", "call loss.backward() on the training loss, then "
                                  "optimizer.step() on the optimizer you were given, inside step")
            try:
                check_tensor(got, want, _gradient_tolerance(want, p.detach()),
                             f"the gradient of {name} on {what} (read as the weights' change under SGD, lr=1)")
            except CheckFailed as err:
                raise CheckFailed(err.reason, "one step: forward, loss, backward, optimizer.step() with the optimizer "
                                  "as given, then zero the gradients (left in place, they add up into the next "
                                  "step's)") from None
            offset += p.numel()
        load_params(ref_model, after)  # both continue from the same weights
        ctx.drop_pools(mark)
    return (f"loss and the gradients of all {len(params)} parameters match the grader's own eager steps over 5 steps "
            "(the gradients read as the weights' change under the plain SGD it hands over)")


def one_graph_diagnosis(ctx: GradeContext) -> list[str]:
    """Graphs and breaks while a fresh step runs twice, as the worker counts them (not graded: the speed check
    measures what a break costs)."""
    _, step = _student(ctx)
    cfg, batch = CONFIGS[ctx.size]
    slots = ctx.put([t for i in range(2) for t in _batch(ctx, ctx.generator("structure", i), batch, cfg.seq)])
    found = ctx.call(Fn(f"{WORKLOAD}:step_events"), step.ref, *slots, keep=False,
                     what="step(x, y)").value.get("value") or {}
    found = found if isinstance(found, dict) else {}
    if not found.get("graphs"):
        return ["nothing was compiled while step(x, y) ran: the training step runs eagerly. Which function runs the "
                "blocks when your step runs, and which function did torch.compile get?"]
    inside = [str(b) for b in found.get("inside") or []][:3] if isinstance(found.get("inside"), list) else []
    if inside:
        return [f"graph break(s) inside the model's training loss: {'; '.join(inside)}. Each break splits the "
                "forward into separate graphs, and AOTAutograd builds a separate backward for each: move checks, "
                "prints and .item() calls out of the loss, or express them with tensor ops"]
    return [f"{found.get('graphs')} graph(s) compiled while step(x, y) ran, {found.get('kernels')} generated "
            "kernel(s), without a break inside the model's training loss or a block's forward (what compiled, and "
            "whether it covers the whole loss, the speed check measures)"]


class Replay:
    """The grader's own eager replay of every timed step of the learner's, with its own AdamW: after each block
    the losses and the weights must be what those steps give (no step skipped, no other learning rate)."""

    def __init__(self, ctx: GradeContext):
        self.model = build_model(ctx.size, _seed(ctx), ctx.device)
        self.optimizer = make_optimizer(self.model)
        self.drift = 0.0  # the largest relative difference of a block's update seen so far

    def __call__(self, record: BlockRecord) -> None:
        start = torch.empty_like(record.finished)
        copy_params(self.model, start)  # the learner's weights before the block (loaded after the last one)
        try:
            for j, (x, y) in enumerate(record.calls):
                want = train_step(self.model, self.optimizer, x.clone(), y.clone())
                check_tensor(record.outs[j].clone(), want, TIMED_LOSS_TOL, f"during timing, the loss of step "
                             f"{j + 1} of {len(record.calls)} in a block")
            flat = torch.empty_like(record.finished)
            copy_params(self.model, flat)
            check_tensor(record.finished.clone(), flat, TIMED_PARAM_TOL, "during timing, the weights after a block "
                         "of steps")
            drift = float((record.finished - flat).norm() / (flat - start).norm().clamp_min(1e-30))
            self.drift = max(self.drift, drift)
            if drift > TIMED_UPDATE_RTOL:
                raise CheckFailed(f"during timing, the weights' update over a block of {len(record.calls)} steps "
                                  f"differs from the grader's replay of the same steps by {drift:.1e} of its size "
                                  f"(fp32 allows {TIMED_UPDATE_RTOL:g}): the gradients were not the fp32 step's "
                                  "(lower precision, or another computation)")
        except CheckFailed as err:
            raise CheckFailed(err.reason.replace("weights after a block of steps differs", "weights after a block of "
                                                 "steps differ").replace("from the reference", "from the grader's "
                                                                         "replay of the same steps"),
                              "every call of step must do the whole fp32 step: backward and optimizer.step() with "
                              "the optimizer as given") from None
        load_params(self.model, record.finished)  # continue from the learner's weights: no drift accumulates


def check_train_speed(ctx: GradeContext):
    cfg, batch = CONFIGS[ctx.size]
    model, step = _student(ctx)
    base_model = build_model(ctx.size, _seed(ctx), ctx.device)
    base_opt = make_optimizer(base_model)

    def baseline(x, y):
        return train_step(base_model, base_opt, x, y)

    timed = Timed(args=lambda gen, i: _batch(ctx, gen, batch, cfg.seq), tol=TIMED_LOSS_TOL, no_grad=False,
                  out_like=lambda args: ((), torch.float32), finish=f"{WORKLOAD}:copy_params",
                  finish_numel=param_count(base_model), verify=Replay(ctx),
                  # ~15 ms baseline steps on a GPU: long blocks keep the boundary's cost near 2%
                  min_block_s=0.1 if ctx.cuda else None)
    message, details = speed_check(ctx, baseline, step.ref, timed, name="step", baseline_model=base_model,
                                   candidate_model=model.ref)
    details["update_drift_max"] = timed.verify.drift
    return message, details


EXERCISE = Exercise(
    id=ID,
    title="The compile pipeline: a NaN-hunting backend and a compiled training step",
    entry_points=("NanHunter", "make_train_step"),
    judge_compiles=True,  # the truth for hidden functions: torch.compile(fn, backend=...) in the judge
    baseline="the eager training step",
    speed_gate=1.5,
    checks=(
        # The hunter runs where Dynamo calls it, in your process: what it found is an answer, compared with what
        # the grader's own hunter finds in hidden functions drawn from the secret.
        Check("hunter_graph", "NanHunter finds the graph where the values stop being finite", 2, check_hunter_graph,
              ("NanHunter",), kind="structure", decided_by=_HUNTER),
        Check("hunter_node", "NanHunter finds the first node whose output is not finite", 3, check_hunter_node,
              ("NanHunter",), kind="structure", hidden=True, decided_by=_HUNTER),
        Check("train_step_correct", "the training step matches eager: loss and gradients", 3,
              check_train_correct, ("make_train_step",), hidden=True, decided_by=(
                  answer("each step's loss, read from the grader's memory, against its own eager step from the same "
                         "weights", _STEPPED),
                  answer("each step's gradients, read as the change of the weights (copied into the grader's "
                         "memory) under the plain SGD with lr=1 it hands over, against its own backward", _STEPPED)),
              diagnose=one_graph_diagnosis, diagnostics=(
                  worker("graphs and breaks inside the model's training loss, counted in your process",
                         f"{WORKLOAD}:step_events"),)),
        Check("train_step_speed", "the training step is at least 1.5x faster than eager", 6, check_train_speed,
              ("make_train_step",), kind="speed", decided_by=SPEED_FACTS + (
                  judge("every timed step replayed by the grader, eagerly, with its own AdamW: each block's losses, "
                        "weights and whole update", f"{WORKLOAD}:copy_params"),),
              diagnose=speed_diagnosis, diagnostics=SPEED_DIAGNOSTICS),
    ),
    hints={
        "hunter_graph": [
            "Dynamo calls your backend once for every graph it captures (a graph break means two graphs), and runs "
            "what the backend returns each time the compiled function reaches that graph. Which of the two moments "
            "can see the values?",
            "What you return for a graph can be any callable: a function defined inside __call__ remembers the "
            "graph it was made for, and its number.",
        ],
        "hunter_node": [
            "The graph's result is too late to tell which node went wrong. torch.fx.Interpreter runs a GraphModule "
            "one node at a time: what could a subclass do after each node runs?",
            "Only the first non-finite output counts: once self.first is set, later nodes and later graphs must not "
            "change it. torch.isfinite(t).all() tells a tensor's case.",
        ],
        "train_step_correct": [
            "step(x, y) must do what train_step does: model.training_loss(x, y), backward, optimizer.step(), "
            "zero_grad.",
            "Return the loss computed before the update, as a 0-dim tensor.",
            "Use the optimizer you are given, whatever it is: this check hands over plain SGD (its update is the "
            "gradient), the timing AdamW.",
        ],
        "train_step_speed": [
            "The eager step launches a kernel per op of every RMSNorm, RoPE, softmax and SwiGLU, forward and "
            "backward. torch.compile fuses them, but only in frames it compiled: count the graphs your step "
            "compiles (lesson 2's counting backend, or torch._dynamo.utils.counters['stats']['unique_graphs']).",
            "No graph, or fewer than you expected? Find the Python function that runs the blocks when your step "
            "runs (model.training_loss?? shows its code), and what torch.compile was handed: compiling a module "
            "compiles calls of the module, model(x), which run its forward.",
            "Once the loss compiles as one graph, time optimizer.step() alone, eager and compiled: AdamW updates "
            "every parameter with several small ops. Keep whichever step is faster on your GPU.",
        ],
    },
)
