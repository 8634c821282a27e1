"""Lesson 5's sections on shape-relation guards, unbacked sizes and CUDA-graph recordings per bucket (issue 39
item 3): each claim checked against torch on a CPU, each tied to the prose or the cell that makes it, so that
a torch that changes the behaviour, or a lesson that drops the claim, fails here.

The functions are the lesson's own cells' code, read from the notebook, so a test checks what the lesson runs.
What these cells printed on a GPU (the recordings and their memory included) is tied to the prose in
tests/test_lesson_claims_gpu_05_06.py.
"""

import inspect
import json
import re
import warnings
from functools import partial

import pytest
import torch
import torch._dynamo
from conftest import REPO
from lesson_gpu_outputs import says

from autograder.core.compile_events import capture_compile_events
from autograder.course import recompiles

LESSON = REPO / "lessons" / "05_dynamic_shapes.ipynb"


def _cells() -> dict[str, str]:
    return {c["id"]: "".join(c["source"]) for c in json.loads(LESSON.read_text())["cells"]}


_says = partial(says, "05_dynamic_shapes")  # the lesson's cell still says each phrase


def _functions(cell: str, *names: str) -> list:
    """The functions ``names`` as the lesson's code cell ``cell`` defines them (only the ``def`` blocks run)."""
    source = _cells()[cell]
    blocks = re.findall(r"^def .*?(?=^\S|\Z)", source, re.S | re.M)
    scope = {"torch": torch}
    for block in blocks:
        exec(compile(block, f"lesson05:{cell}", "exec"), scope)
    return [scope[n] for n in names]


def _shape_guards(fn) -> list[list[str]]:
    """Each cached graph's guards on sizes, most recently used first (as the lesson reads them)."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return [[ln.split("LAMBDA_GUARD: ", 1)[1].split("  #")[0] for ln in str(e.guard_manager).splitlines()
             if "LAMBDA_GUARD: " in ln and ".size()" in ln] for e in _debug_get_cache_entry_list(fn)]


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


# ------------------------------------------------------------------------------------- guards on shape relations
def test_the_three_shape_relations_become_guards_of_the_first_dynamic_graph():
    (relations,) = _functions("shape-relations", "relations")
    torch.compile(relations, backend="eager", dynamic=True)(torch.randn(32), torch.randn(8, 4))
    (guards,) = _shape_guards(relations)
    assert "(L['x'].size()[0] % 4) == 0" in guards  # view(-1, 4): divisibility
    assert "(L['x'].size()[0] // 4) == L['y'].size()[0]" in guards  # the broadcast, traced as equal lengths
    assert "17 <= L['x'].size()[0]" in guards  # if x.size(0) > 16
    _says("shape-relations-md", "(L['x'].size()[0] % 4) == 0", "17 <= L['x'].size()[0]",
          "(L['x'].size()[0] // 4) == L['y'].size()[0]")


def test_a_call_that_keeps_the_relations_reuses_the_graph_and_one_that_flips_them_recompiles_naming_it():
    (relations,) = _functions("shape-relations", "relations")
    compiled = torch.compile(relations, backend="eager", dynamic=True)
    calls = [(32, 8), (64, 16), (8, 2), (64, 1), (40, 10), (12, 3)]
    assert f"for n, m in {calls}" in _cells()["shape-relations"]  # the lesson's own calls
    compiled_at, failed = [], []
    with capture_compile_events() as events:
        for n, m in calls:
            before = events.snapshot()
            compiled(torch.randn(n), torch.randn(m, 4))
            new = events.snapshot().since(before)
            compiled_at.append(new.graphs)
            failed.append(new.recompiles[0].guards if new.recompiles else [])
    assert compiled_at == [1, 0, 1, 1, 0, 0] and events.graphs == 3
    assert failed[2] == ["0/0: 17 <= x.size()[0]"]  # the branch flipped
    assert all("(x.size()[0] // 4) == y.size()[0]" in g for g in failed[3])  # len(y) == 1 broke the equality
    # the graph for the short branch, and the size-1 graph with no symbolic guard on y
    short, first, size_one = _shape_guards(relations)  # most recently used first: (12, 3), (40, 10), (64, 1)
    assert "2 <= L['x'].size()[0] <= 16" in short and "17 <= L['x'].size()[0]" in first
    assert not any("L['y']" in g for g in size_one)
    _says("shape-relations-read", "Lengths 64 and 16 keep them all: the graph is reused",
          "the recompile names `17 <= x.size()[0]`", "guarded by `2 <= L['x'].size()[0] <= 16`",
          "a length of 1 fails the equality: a graph of its own", "run the first two graphs again")


def test_the_size_one_graph_holds_y_as_a_constant_size_in_its_tensor_match():
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    (relations,) = _functions("shape-relations", "relations")
    compiled = torch.compile(relations, backend="eager", dynamic=True)
    compiled(torch.randn(32), torch.randn(8, 4))
    compiled(torch.randn(64), torch.randn(1, 4))
    tree = str(_debug_get_cache_entry_list(relations)[0].guard_manager)
    y_match = next(ln for ln in tree.splitlines() if "TENSOR_MATCH" in ln and "L['y']" in ln)
    assert "size=[1, 4]" in y_match
    _says("shape-relations-read", "(its `TENSOR_MATCH` holds `size=[1, 4]`")


def test_a_length_not_a_multiple_of_four_fails_the_divisibility_guard_then_raises_as_eager_does():
    (relations,) = _functions("shape-relations", "relations")
    compiled = torch.compile(relations, backend="eager", dynamic=True)
    compiled(torch.randn(32), torch.randn(8, 4))
    with pytest.raises(RuntimeError), torch.no_grad():
        relations(torch.randn(30), torch.randn(7, 4))
    with capture_compile_events() as events, pytest.raises(RuntimeError):  # view's error, raised while tracing
        compiled(torch.randn(30), torch.randn(7, 4))
    assert events.recompiles and any("% 4" in g for g in events.recompiles[0].guards)
    _says("shape-relations-read",
          "A length that is not a multiple of 4 would fail `% 4 == 0`, recompile, and then raise")


# ---------------------------------------------------------------------------------------------- unbacked sizes
def test_a_data_dependent_selection_breaks_by_default_and_is_one_graph_with_u0_under_the_flag():
    (positives,) = _functions("unbacked-sizes", "positives")
    y = torch.randn(16)
    e = torch._dynamo.explain(positives)(y)
    assert (e.graph_count, e.graph_break_count) == (2, 1)
    assert "nonzero" in e.break_reasons[0].reason
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        e = torch._dynamo.explain(positives)(y)
    assert (e.graph_count, e.graph_break_count) == (1, 0)
    shapes = [n.meta["example_value"].shape for n in e.graphs[0].graph.nodes
              if isinstance(n.meta.get("example_value"), torch.Tensor)]
    unbacked = [s for s in shapes if any(isinstance(d, torch.SymInt) for d in s)]
    assert unbacked and all(str(s[0]) == "u0" for s in unbacked)
    asserts = [ln for ln in e.graphs[0].code.splitlines() if "_assert_scalar" in ln]
    assert any("u0 >= 0" in ln for ln in asserts) and any("u0 <= 16" in ln for ln in asserts)
    _says("unbacked-md", "By default Dynamo does not create one: it breaks the graph at the operation",
          "`torch._dynamo.config.capture_dynamic_output_shape_ops = True` keeps")
    _says("unbacked-read", "By default the selection is where the graph breaks: two graphs",
          "With the flag it is one graph, and the selected tensor's shape is `(u0,)`", "at least 0, at most the 16")


def test_a_new_number_of_selected_values_recompiles_nothing():
    (positives,) = _functions("unbacked-sizes", "positives")
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True), capture_compile_events() as events:
        counted = torch.compile(positives, backend="eager")
        for k in (3, 9, 14):
            counted(torch.cat([torch.rand(k) + 0.1, -torch.rand(16 - k) - 0.1]))
    assert events.graphs == 1 and not events.recompiles
    _says("unbacked-read", "a new number of positive values recompiles nothing (three counts, one graph)")


def test_both_capture_flags_default_to_false_and_fullgraph_turns_both_on():
    from torch._dynamo import config, output_graph

    assert config.capture_dynamic_output_shape_ops is False and config.capture_scalar_outputs is False
    source = inspect.getsource(output_graph)
    assert "allow_scalar_outputs=one_graph or config.capture_scalar_outputs" in source
    assert re.search(r"allow_dynamic_output_shape_ops=one_graph\s+or config.capture_dynamic_output_shape_ops", source)
    (positives,) = _functions("unbacked-sizes", "positives")
    with capture_compile_events() as events:
        torch.compile(positives, backend="eager", fullgraph=True)(torch.randn(16))
    assert events.graphs == 1 and not events.graph_breaks
    _says("unbacked-md", "Both default to `False` in torch 2.11 and 2.13",
          "`fullgraph=True` turns both on for that compile")


def test_a_branch_on_an_unbacked_size_cannot_be_guarded_and_torch_check_fixes_it():
    head, head_checked = _functions("unbacked-sizes", "head", "head_checked")
    y = torch.linspace(-1.0, 1.0, 16)  # 8 positives: head_checked's promise (more than 4) holds, as in the lesson
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        e = torch._dynamo.explain(head)(y)
        assert (e.graph_count, e.graph_break_count) == (2, 1)
        assert "Could not guard on data-dependent expression u0 > 4" in e.break_reasons[0].reason
        with pytest.raises(Exception, match="data-dependent"):  # under fullgraph=True the break is an error
            torch.compile(head, backend="eager", fullgraph=True)(y)
        torch._dynamo.reset()
        e = torch._dynamo.explain(head_checked)(y)
        assert (e.graph_count, e.graph_break_count) == (1, 0)
    _says("unbacked-md", "Could not guard on data-dependent expression", "`torch._check(condition)` is the fix")
    _says("unbacked-read", "`head` asks Python a question about `u0` and breaks there (under `fullgraph=True` that "
          "break is an error)", "`torch._check` answers it: one graph")


def test_torch_check_is_a_promise_checked_at_run_time():
    head, head_checked = _functions("unbacked-sizes", "head", "head_checked")
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
        strict = torch.compile(head_checked, backend="eager", fullgraph=True)
        y = torch.randn(16).abs() + 0.1
        assert torch.allclose(strict(y), head(y))
        with pytest.raises(RuntimeError, match="Runtime assertion failed for expression u0 >= 5"):
            strict(torch.tensor([1.0, -1.0, 2.0]))
    _says("unbacked-read", "the graph asserts the promise on every call, and a call that breaks it raises")


def test_check_is_size_is_deprecated_with_a_future_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch._check_is_size(3)
    assert any(w.category is FutureWarning and "Use _check(i >= 0) instead" in str(w.message) for w in caught)
    _says("unbacked-md", "it is deprecated in 2.11 and 2.13 (a `FutureWarning`")


def test_the_other_switches_the_lesson_names_exist():
    import torch.fx.experimental._config as fx_config
    from torch._dynamo import decorators

    assert callable(decorators.mark_unbacked) and not hasattr(torch._dynamo, "mark_unbacked")
    assert fx_config.backed_size_oblivious is False
    _says("unbacked-read", "`torch._dynamo.decorators.mark_unbacked(x, dim)` (not exported as "
          "`torch._dynamo.mark_unbacked` in 2.11 or 2.13)", "`torch.fx.experimental._config.backed_size_oblivious`")


# ------------------------------------------------------------------------------ buckets and CUDA-graph recordings
def test_cudagraph_trees_key_recordings_on_integer_inputs_and_the_named_settings_exist():
    from torch._inductor import config, cudagraph_trees

    source = inspect.getsource(cudagraph_trees.cudagraphify_impl)
    assert "fn_cache" in source and "int_key" in source and "is_cudagraph_capture_sizes" in source
    assert config.triton.cudagraph_capture_sizes is None and config.triton.cudagraph_skip_dynamic_graphs is False
    assert config.triton.cudagraph_dynamic_shape_warn_limit == 8
    manager = cudagraph_trees.CUDAGraphTreeManager
    assert callable(manager.get_roots) and "self.children" in inspect.getsource(cudagraph_trees.CUDAGraphNode)
    assert "create_if_none_exists" in inspect.signature(cudagraph_trees.get_manager).parameters
    _says("cudagraph-recordings-md", "`fn_cache` in `cudagraphify_impl`", "`cudagraph_capture_sizes`",
          "`cudagraph_skip_dynamic_graphs=True`", "`cudagraph_dynamic_shape_warn_limit` (8)")


def test_recordings_are_distinct_lengths_under_dynamic_true_and_buckets_used_with_buckets():
    """The CPU half of the cell: its arithmetic, for the lesson's smoke-size stream."""
    max_len, n_requests = 32, 24  # the lesson's smoke sizes (cell-10)
    assert "ctx.pick((32, 4, 1, 32)" in _cells()["cell-10"] and "ctx.pick(24, 48)" in _cells()["cell-10"]
    lengths = [int(t) for t in torch.randint(max_len // 8, max_len + 1, (n_requests,),
                                             generator=torch.Generator().manual_seed(0))]
    step = max_len // 4
    used = recompiles.bucket_plan(lengths, step, max_len)[0]
    assert used <= 4 < len(set(lengths))
    longer = torch.randint(max_len // 8, max_len + 1, (1000,), generator=torch.Generator().manual_seed(1)).tolist()
    assert len(set(longer)) == max_len - max_len // 8 + 1 and recompiles.bucket_plan(longer, step, max_len)[0] == 4
    cell = _cells()["cudagraph-recordings"]
    assert 'print("\\nCUDA-graph recordings and their memory: skipped: needs a CUDA GPU")' in cell
    _says("cudagraph-recordings-read", "one recording per bucket used, one per distinct length under `dynamic=True`")
    assert "06_cuda_graphs" not in cell and "lesson 6, section 2" in _cells()["cudagraph-recordings-md"]


def test_maybe_mark_dynamic_takes_no_bounds_before_torch_2_15_as_the_table_says():
    """The table's maybe_mark_dynamic row: bounds only from torch 2.15 (FACTS.md, from every wheel 2.0-2.15); on the
    torch installed here they are a TypeError, while mark_dynamic takes them."""
    version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    x = torch.ones(4, 3)
    torch._dynamo.mark_dynamic(x, 0, min=2, max=64)
    if version < (2, 15):
        assert not {"min", "max"} & set(inspect.signature(torch._dynamo.maybe_mark_dynamic).parameters)
        with pytest.raises(TypeError):
            torch._dynamo.maybe_mark_dynamic(torch.ones(4, 3), 0, min=2, max=64)
    _says("82c69083", "no `min=`/`max=` before torch 2.15: a `TypeError` in 2.11 and 2.13")
