"""Lesson 2's claims about torch's behaviour, each tied to what torch does (the 2026-11-27 accuracy review, items N5,
N7, N14 and 2.2): if torch changes, the test fails and the lesson's text must change with it.

Checked on torch 2.13 (CI); the sources quoted were also read in torch 2.11.0's wheel."""

import inspect
import logging

import pytest
import torch

from autograder.course import pipeline, training, troubleshoot

# ---- N5: compiled autograd acts only while a compiled function runs ----


def test_the_compiled_autograd_flag_is_an_enter_exit_hook_around_each_call_of_a_compiled_function():
    """Lesson 2: torch.compile, with the flag set, installs a hook that enters compiled_autograd._enable(...) at each
    call of the compiled function and leaves it when the call returns."""
    from torch._dynamo import compiled_autograd
    from torch._dynamo.eval_frame import OptimizeContext

    init = inspect.getsource(OptimizeContext.__init__)
    assert "if config.compiled_autograd:" in init
    assert "compiled_autograd._enable(" in init and "self.enter_exit_hooks.append(call_compiled_autograd)" in init
    # the explicit form the lesson shows: a context manager taking the compiler for the captured backward
    assert list(inspect.signature(compiled_autograd._enable).parameters)[0] == "compiler_fn"


def test_compiled_autograd_captures_a_backward_inside_the_compiled_function_and_silently_not_one_outside():
    rows = {(ca, where): training.backward_graphs(ca, backward=where)
            for ca, where in [(False, "inside"), (True, "inside"), (True, "outside"), ("context", "outside")]}

    def counts(row):
        return row.forward_graphs, row.partitioned, row.aot_backward_graphs, row.captures

    # (forward graphs, joint graphs partitioned, backward graphs compiled per piece, compiled-autograd captures)
    assert counts(rows[False, "inside"]) == (2, 2, 2, 0), rows[False, "inside"]
    # inside: the joint graphs are still traced and split; no backward compiled per piece; one capture, which
    # reaches the backend as a third graph
    assert counts(rows[True, "inside"]) == (3, 2, 0, 1), rows[True, "inside"]
    assert "graphs to the backend 3 (2 forward, 1 captured backward)" in rows[True, "inside"].line()
    # outside: the flag does nothing (plain torch.compile's counts)
    assert counts(rows[True, "outside"]) == (2, 2, 2, 0), rows[True, "outside"]
    # the explicit context captures a backward outside any compiled function, with the flag off
    assert counts(rows["context", "outside"]) == (3, 2, 0, 1), rows["context", "outside"]
    assert not torch._dynamo.config.compiled_autograd  # put back


def test_the_explicit_context_in_the_lesson_captures_a_backward_outside_the_compiled_module():
    from torch._dynamo import compiled_autograd
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    lin = torch.nn.Linear(8, 8)
    compiled_lin = torch.compile(lin, backend="aot_eager")
    compiled_lin(torch.randn(2, 8)).sum().backward()  # no context, flag off: nothing captured
    assert counters["compiled_autograd"]["captures"] == 0
    with compiled_autograd._enable(torch.compile(backend="aot_eager")):
        compiled_lin(torch.randn(2, 8)).sum().backward()
    assert counters["compiled_autograd"]["captures"] == 1
    torch._dynamo.reset()


# ---- N7: a float learning rate under a scheduler ----


def test_floats_are_not_specialised_by_default():
    assert torch._dynamo.config.specialize_float is False


def test_a_float_lr_recompiles_once_with_single_tensor_adam_and_per_value_with_foreach_adam():
    single = training.scheduled_compiled_steps(lr_as_tensor=False, foreach=False, steps=5)
    assert single.graphs == 2 and len(single.recompile_reasons) == 1, single  # a constant, then symbolic
    foreach = training.scheduled_compiled_steps(lr_as_tensor=False, foreach=True, steps=5)
    assert foreach.graphs == 5 and len(foreach.recompile_reasons) == 4, foreach  # every new value
    assert all("['lr'] ==" in reason for reason in foreach.recompile_reasons)
    tensor = training.scheduled_compiled_steps(lr_as_tensor=True, steps=5)
    assert tensor.graphs == 1 and not tensor.recompile_reasons
    assert single.lrs == pytest.approx(foreach.lrs) and single.lrs == pytest.approx(tensor.lrs)


def test_the_per_value_recompiles_come_from_aotautograds_tensorify_pass_on_foreach_div():
    """Lesson 2's mechanism: Dynamo alone makes the changed float symbolic (backend="eager": 2 graphs); AOTAutograd's
    tensorify pass fails on aten._foreach_div.Scalar, specialises it and restarts Dynamo (aot_eager: one per value)."""
    from torch.optim import adam

    assert "torch._foreach_div_(bias_correction1, lr)" in inspect.getsource(adam._multi_tensor_adam)
    assert training.scheduled_compiled_steps(lr_as_tensor=False, foreach=True, steps=4, backend="eager").graphs == 2

    messages = []

    class Keep(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    log = logging.getLogger("torch.fx.passes._tensorify_python_scalars")
    handler, level = Keep(level=logging.INFO), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        run = training.scheduled_compiled_steps(lr_as_tensor=False, foreach=True, steps=4, backend="aot_eager")
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
    assert run.graphs == 4, run
    assert "Failed to tensorify aten._foreach_div.Scalar" in messages, messages


# ---- N14: the four-stage bisection ----


def test_the_bisection_runs_the_official_four_backends_and_each_is_registered():
    backends = [backend for backend, _ in troubleshoot.STAGES]
    assert backends == ["eager", "aot_eager", "aot_eager_decomp_partition", "inductor"]
    registered = torch._dynamo.list_backends(exclude_tags=())
    assert all(b in registered for b in backends), registered


def test_aot_eager_decomp_partition_adds_inductors_decomposition_table_and_aot_eager_has_its_partitioner():
    from torch._dynamo.backends import debugging

    decomp_partition = inspect.getsource(debugging.aot_eager_decomp_partition)
    assert "select_decomp_table()" in decomp_partition and "min_cut_rematerialization_partition" in decomp_partition
    aot_eager = inspect.getsource(debugging.aot_eager)
    assert "partition_fn=min_cut_rematerialization_partition" in aot_eager and "decompositions" not in aot_eager


def test_dropout_differs_from_the_decomposition_stage_and_rand_like_only_at_code_generation():
    import torch._inductor.config
    from torch._inductor.decomposition import select_decomp_table

    def dropped(x):
        return torch.nn.functional.dropout(x, 0.5, training=True)

    def noised(x):
        return x + 0.1 * torch.rand_like(x)

    x = torch.randn(512)
    rows = troubleshoot.bisect(dropped, x, seed=0)
    assert [r.ok for r in rows] == [True, True, False, False], [r.line() for r in rows]
    assert troubleshoot.first_bad_stage(rows) == "Inductor's decompositions"
    assert torch.ops.aten.native_dropout.default in select_decomp_table()  # decomposed into rand_like > p
    rows = troubleshoot.bisect(noised, x, seed=0)
    assert [r.ok for r in rows] == [True, True, True, False], [r.line() for r in rows]
    assert troubleshoot.first_bad_stage(rows) == "Inductor's code generation"

    with torch._inductor.config.patch(fallback_random=True):
        assert torch.ops.aten.native_dropout.default not in select_decomp_table()
        for fn in (dropped, noised):
            assert all(r.ok for r in troubleshoot.bisect(fn, x, seed=0)), fn.__name__


# ---- 2.2: regional compilation generates one block's code whatever the depth ----


class _Block(torch.nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.lin, self.norm = torch.nn.Linear(dim, dim), torch.nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(x + torch.nn.functional.gelu(self.lin(x), approximate="tanh"))


def test_whole_model_code_grows_with_depth_and_regional_code_does_not():
    x = torch.randn(4, 16)
    got = {}
    for depth in (2, 4):
        for regional in (False, True):
            torch.manual_seed(0)
            call = pipeline.cold_first_call(torch.nn.Sequential(*[_Block() for _ in range(depth)]), x,
                                            regional=regional)
            got[regional, depth] = call
    counts = {key: (c.events.graphs, len(c.events.recompiles), c.events.kernels) for key, c in got.items()}
    (g2, r2, k2), (g4, r4, k4) = counts[False, 2], counts[False, 4]
    assert (g2, r2, g4, r4) == (1, 0, 1, 0) and k2 > 0 and k4 == 2 * k2, counts  # one graph, code for every block
    # each block: two graphs (the first block's input does not require grad, the others' do), the same code at
    # any depth
    assert counts[True, 2] == counts[True, 4] and counts[True, 2][:2] == (2, 1), counts
    assert got[False, 4].block_seconds == [] and len(got[True, 4].block_seconds) == 4
    # the first two blocks compile; a later block's first call only runs the cached graph (milliseconds, against
    # seconds for a compile: a wide margin for a busy machine)
    compiles, reuses = got[True, 4].block_seconds[:2], got[True, 4].block_seconds[2:]
    assert max(reuses) < min(compiles) / 5, got[True, 4].block_seconds
