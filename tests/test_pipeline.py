"""Lesson 2's windows into the pipeline, exercise 02's premises, and where a graph break is located."""

from types import SimpleNamespace

import pytest
import torch

from autograder.core.compile_events import capture_compile_events
from autograder.course import pipeline
from autograder.course.models import BlockConfig, make_model, mse
from autograder.exercises.ex02_compile_pipeline import spec as ex02
from autograder.exercises.ex02_compile_pipeline import workload


def scaled(x, w, steps: int):
    y = x @ w
    for _ in range(steps):
        y = y * 0.5
    y.add_(1.0)
    return torch.tanh(y)


X, W = torch.randn(4, 8), torch.randn(8, 8, requires_grad=True)


def test_guards_pin_python_values_and_tensor_properties():
    torch._dynamo.reset()
    with pipeline.capture_logs(guards=True) as logs:
        torch.compile(scaled, backend="eager")(X, W, 3)
    guards = pipeline.guard_lines(logs)
    assert any(g.startswith("EQUALS_MATCH") and "L['steps'] == 3" in g for g in guards)
    assert any(g.startswith("TENSOR_MATCH") and "L['x']" in g and "size=[4, 8]" in g for g in guards)


def test_capture_logs_leaves_torch_logging_quiet_afterwards(capfd):
    with pipeline.capture_logs(guards=True):
        pass
    torch._dynamo.reset()
    torch.compile(scaled, backend="eager")(X, W, 2)
    assert "GUARDS" not in capfd.readouterr().err


def test_aot_graphs_are_functional_and_split_into_forward_and_backward():
    graphs = pipeline.aot_graphs(lambda x, w: scaled(x, w, 2), X, W)
    forward, backward = pipeline.aten_ops(graphs.forward[0]), pipeline.aten_ops(graphs.backward[0])
    # y.add_ became an out-of-place add ('detach' marks the tanh output saved for the backward)
    assert [op for op in forward if op != "detach"] == ["mm", "mul", "mul", "add", "tanh"]
    assert "mm" in backward and "tanh_backward" in backward
    assert "tangents_1" in graphs.backward[0]


def test_decompositions_break_composite_backward_ops_into_core_ops():
    from torch._decomp import core_aten_decompositions

    def gelu(x, w):
        return torch.nn.functional.gelu(x @ w, approximate="tanh")

    plain = pipeline.aten_ops(pipeline.aot_graphs(gelu, X, W).backward[0])
    table = core_aten_decompositions()
    decomposed = pipeline.aten_ops(pipeline.aot_graphs(gelu, X, W, decompositions=table).backward[0])
    assert "gelu_backward" in plain and "gelu_backward" not in decomposed and "tanh" in decomposed


def test_inductor_fuses_a_pointwise_chain_into_one_kernel_and_its_source_is_shown():
    from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain

    x, bias = torch.randn(64, 64), torch.randn(64)
    out, source = pipeline.inductor_code(gelu_bias_chain, x, bias)
    names = pipeline.kernel_names(source)
    assert len(names) == 1 and "tanh" in names[0]
    assert names[0] in pipeline.kernel_source(source, names[0])
    torch.testing.assert_close(out, gelu_bias_chain(x, bias))


def test_a_cold_compile_takes_longer_than_a_warm_cache():
    def f(x):
        return torch.sin(x) * torch.cos(x) + 1

    x = torch.randn(256)
    pipeline.first_call_seconds(f, x, cold=False)  # make sure the cache holds it
    warm = min(pipeline.first_call_seconds(f, x, cold=False) for _ in range(2))
    cold = pipeline.first_call_seconds(f, x, cold=True)
    assert cold > warm


def test_a_fresh_cache_directory_starts_empty_is_filled_by_the_first_compile_and_read_by_the_next():
    from pathlib import Path

    from torch._inductor.runtime.cache_dir_utils import cache_dir

    def f(x):
        return torch.tanh(x) * 3 - x

    outside = cache_dir()
    with pipeline.fresh_cache_dir():
        inside = Path(cache_dir())
        assert str(inside) != outside and not any(inside.rglob("*.py"))  # nothing compiled there yet
        pipeline.first_call_seconds(f, torch.randn(64), cold=False)
        written = sorted(inside.rglob("*"))
        assert any(p.suffix == ".py" for p in written)  # the compile filled it
        pipeline.first_call_seconds(f, torch.randn(64), cold=False)
        assert sorted(inside.rglob("*")) == written  # the next one read it, and wrote nothing new
    assert cache_dir() == outside and not inside.exists()


# ---- exercise 02's premises ----

def _ctx(secret):
    from autograder.core.correctness import seed_for

    return SimpleNamespace(seed=lambda purpose, index=0: seed_for("02_compile_pipeline", purpose, index, secret),
                           device=torch.device("cpu"))


@pytest.mark.parametrize("secret", ["public", "one", "two", "three", "four", "five"])
def test_the_hidden_functions_go_wrong_where_the_values_decide_and_only_on_the_armed_call(secret):
    """Whatever the secret draws: nothing non-finite on the calm call; on the armed one a first non-finite node in
    each poisoned function, a risky op (log(x - t[i])) that is not the first risky op of the function (that one's
    threshold stays safe), and none in the clean one; the compiled function returns eager's values both times."""
    for h in ex02.hidden_functions(_ctx(secret)):
        fn = workload.hidden_function(h.kind, h.first, h.second)
        hunter, gms = ex02.TrustedHunter(), []

        def backend(gm, example_inputs, hunter=hunter, gms=gms):
            gms.append(gm)
            return hunter(gm, example_inputs)

        torch._dynamo.reset()
        compiled = torch.compile(fn, backend=backend)
        torch.testing.assert_close(compiled(h.x.clone(), h.calm.clone()), fn(h.x.clone(), h.calm.clone()))
        assert hunter.first is None, h.description
        got = compiled(h.x.clone(), h.armed.clone())
        torch._dynamo.reset()
        torch.testing.assert_close(got, fn(h.x.clone(), h.armed.clone()), equal_nan=True)
        if not h.poisoned:
            assert hunter.first is None and bool(torch.isfinite(got).all()), h.description
            continue
        graph, name = hunter.first
        logs = [n.name for n in gms[graph].graph.nodes if n.target is torch.log]
        assert name in logs, (h.description, name, logs)  # a risky op, found by running it
        if graph == 0:
            assert name != logs[0], (h.description, name)  # not the first risky op: its threshold is safe


def test_which_risky_op_goes_wrong_is_an_input_of_the_graph_not_a_constant_in_it():
    """A red team's hunter named the culprit from the graph's structure alone (the old culprits failed for every
    input). Now every risky op is the same subgraph, log(x - t[i]), with its threshold read from an input."""
    h = ex02.hidden_functions(_ctx("public"))[0]
    gms = []

    def backend(gm, example_inputs):
        gms.append(gm)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(workload.hidden_function(h.kind, h.first, h.second), backend=backend)(h.x, h.calm)
    torch._dynamo.reset()
    shapes = [(n.args[0].target, type(n.args[0].args[1]).__name__) for n in gms[0].graph.nodes
              if n.target is torch.log]
    assert len(shapes) == 3 and len(set(shapes)) == 1, shapes  # the same form: a subtraction of a graph value


def test_the_trusted_hunter_finds_an_infinity_that_the_graphs_result_no_longer_shows():
    """The contract's point: the first non-finite node, not the graph's result: relu turns -inf back into 0."""
    def hidden(x):
        return torch.relu(-torch.exp(x.abs() + 1000.0))  # exp overflows to inf, neg makes it -inf, relu 0

    hunter = ex02.TrustedHunter()
    torch._dynamo.reset()
    out = torch.compile(hidden, backend=hunter)(torch.randn(8))
    torch._dynamo.reset()
    assert bool(torch.isfinite(out).all()) and hunter.first == (0, "exp")


def test_the_hidden_functions_depend_on_the_secret():
    a = ex02.hidden_functions(_ctx("one"))
    b = ex02.hidden_functions(_ctx("two"))
    assert [(f.first, f.second) for f in a] != [(f.first, f.second) for f in b]
    assert not all(torch.equal(f.armed, g.armed) for f, g in zip(a, b, strict=True))


def test_the_eager_train_step_returns_the_loss_and_updates_every_weight():
    cfg, batch = workload.CONFIGS["smoke"]
    model = workload.build_model("smoke", 0, "cpu")
    before = [p.detach().clone() for p in model.parameters()]
    x, y = torch.randn(batch, cfg.seq, cfg.dim), torch.randn(batch, cfg.seq, cfg.dim)
    penalty = sum(h.pow(2).mean() for h in _block_outputs(model, x))
    expected = (mse(model(x), y) + workload.PENALTY * penalty).detach()
    torch.testing.assert_close(model.training_loss(x, y).detach(), expected)
    loss = workload.train_step(model, workload.make_optimizer(model), x, y)
    torch.testing.assert_close(loss, expected)
    assert all(not torch.equal(p, b) for p, b in zip(model.parameters(), before, strict=True))
    assert all(p.grad is None for p in model.parameters())


def _block_outputs(model, x):
    """Each block's output, the blocks run one after another."""
    outs = []
    for block in model.blocks:
        x = block(x)
        outs.append(x)
    return outs


def test_make_model_is_reproducible_from_its_seed():
    cfg = BlockConfig(dim=32, heads=2, layers=1, seq=8)
    a, b = make_model(cfg, seed=3), make_model(cfg, seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


# ---- where a graph break happened ----

class _Checked(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # data-dependent: breaks the graph inside forward
            return x * 2
        return x


@pytest.mark.parametrize("inside", [True, False])
def test_a_graph_break_is_located_inside_or_outside_a_module_forward(inside):
    module = _Checked()

    def outside(x):
        y = torch.sin(x)
        torch._dynamo.graph_break()
        return y + 1

    torch._dynamo.reset()
    with capture_compile_events() as events:
        torch.compile(module if inside else outside)(torch.randn(8))
    assert len(events.graph_breaks) == 1
    assert events.graph_breaks[0].inside_forward is inside


def test_bisection_names_the_first_stage_that_raises_or_differs():
    from autograder.course import troubleshoot

    def noisy(x):  # dropout draws other random numbers once decomposed, and Inductor draws its own
        return torch.nn.functional.dropout(x, 0.5, training=True)

    rows = troubleshoot.bisect(noisy, torch.randn(256), seed=0)
    # Inductor's decomposition table already turns dropout into rand_like > p: from the third of four stages
    assert [r.ok for r in rows] == [True, True, False, False]
    assert troubleshoot.first_bad_stage(rows) == "Inductor's decompositions"

    def branchy(x):  # a data-dependent branch breaks the graph; every stage still agrees with eager
        return x * 2 if x.sum() > 0 else x

    rows = troubleshoot.bisect(branchy, torch.ones(4), seed=0)
    assert all(r.ok for r in rows) and troubleshoot.first_bad_stage(rows) is None

    def crashes(x):  # broken without compile too: nothing to bisect, and it says so
        return x @ torch.ones(3, 3)

    with pytest.raises(ValueError, match="raises without torch.compile too"):
        troubleshoot.bisect(crashes, torch.ones(4))


def test_compile_phases_are_read_after_a_compile_and_nest_inside_the_whole():
    from autograder.course import troubleshoot

    torch._dynamo.reset()
    troubleshoot.reset_compile_phases()
    torch.compile(lambda x: torch.relu(x) * 2)(torch.randn(8))
    phases = {name: seconds for name, _, seconds, _ in troubleshoot.compile_phases()}
    whole = phases["_compile.compile_inner"]
    assert whole > 0 and all(s <= whole * 1.01 for s in phases.values()), phases


def test_a_float_learning_rate_under_a_scheduler_recompiles_and_a_tensor_one_does_not():
    from autograder.course import training

    floats, tensors = (training.scheduled_compiled_steps(lr_as_tensor=t, steps=4) for t in (False, True))
    # CPU parameters: Adam's single-tensor code, where the changed float becomes symbolic after one recompile
    # (with foreach=True every value recompiles: tests/test_lesson02_claims.py)
    assert floats.graphs == 2 and len(floats.recompile_reasons) == 1 and "lr" in floats.recompile_reasons[0], floats
    assert tensors.graphs == 1 and not tensors.recompile_reasons
    assert floats.lrs == pytest.approx(tensors.lrs, rel=1e-6)  # the same schedule either way


def test_compiled_autograd_captures_a_broken_forwards_backward_as_one_graph():
    """Lesson 2's claim: with a graph break in the forward, AOTAutograd traces a joint graph per forward piece and
    compiles one backward graph per piece; compiled autograd (the backward inside the compiled step) captures the
    whole backward at run time as one graph instead, and the per-piece backward compiles do not happen."""
    from autograder.course import training

    plain, captured = (training.backward_graphs(compiled_autograd=ca) for ca in (False, True))
    assert (plain.forward_graphs, plain.aot_backward_graphs, plain.captures) == (2, 2, 0), plain
    assert (captured.aot_backward_graphs, captured.captures) == (0, 1), captured
    assert captured.forward_graphs == 3  # the two pieces, and the captured backward reaching the backend
    assert not torch._dynamo.config.compiled_autograd  # the setting is put back
