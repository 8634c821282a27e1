"""Lessons 3 and 6 state how torch's CUDA-graph and autotuning machinery works, citing its source: each such
statement is checked here against the installed torch's own code (an outside review of 2026-11-29 found five of
them wrong or imprecise), or against what the lesson's cells printed on a GPU."""

import inspect
import re

import torch
import torch._inductor.config as inductor_config
from lesson_gpu_outputs import TORCH_DIR, output, prose, record_dated, run_cell, says

L3, L4, L5, L6 = "03_compile_modes", "04_graph_breaks", "05_dynamic_shapes", "06_cuda_graphs"


def test_a_skip_is_a_warning_printed_with_no_logging_setting_and_perf_hints_was_off_by_default():
    import logging

    from torch._inductor import cudagraph_utils
    from torch._logging import _internal

    assert cudagraph_utils.cudagraphs_log.isEnabledFor(logging.WARNING)  # no TORCH_LOGS in this process's setup
    assert "perf_hints" in _internal.log_registry.off_by_default_artifact_names
    assert "cudagraphs" not in _internal.log_registry.off_by_default_artifact_names
    assert "TORCH_LOGS" not in prose(L6, "cell-16")  # the cell that printed the warning set nothing
    assert "[__cudagraphs] skipping cudagraphs due to mutated inputs" in output(L6, "cell-16")
    says(L6, "cell-15", "from torch 2.11 the skip is printed as a warning with no setting at all")


def test_with_graph_partitioning_a_mutated_input_is_logged_and_only_some_failed_tests_go_unreported():
    from torch._inductor import output_code

    init = inspect.getsource(output_code.CompiledFxGraph.__init__)
    assert "self.disabled_cudagraphs_reason = storage_mutation_reason" in init  # reported before the partition path
    assert '"non-Tensor inputs"' in init
    partition = inspect.getsource(output_code.cudagraph_partition_post_compile)
    early = partition.split("cudagraph_fail_reasons\n")[1].split("return")[0]
    assert "log_cudagraph_skip_and_bump_counter" not in early  # the silent early return
    says(L6, "cell-15", 'tests that sets no skip reason ("non-Tensor inputs")', "A mutated input, by contrast, is "
         "logged and counted")


def test_cudagraph_trees_clear_the_cublas_workspaces_around_warm_up_and_recording():
    from torch._inductor import cudagraph_trees

    assert "_cuda_clearCublasWorkspaces" in inspect.getsource(cudagraph_trees.clear_cublass_cache)
    assert inspect.getsource(cudagraph_trees).count("clear_cublas_manager(),") >= 2
    says(L6, "cell-07", "CUDAGraph Trees call it around each warm-up and recording")


def test_static_inputs_may_be_mutated_without_the_input_mutation_flag_pool_tensors_only_with_it():
    from torch._inductor import cudagraph_utils

    without_flag = inspect.getsource(cudagraph_utils.check_for_mutation_ignore_cuda_graph_managed_tensor)
    assert "static_input_idxs" in without_flag
    assert isinstance(inductor_config.triton.cudagraph_support_input_mutation, bool)
    says(L6, "cell-15", "parameters and buffers (a KV cache, BatchNorm's running statistics) always, and tensors an "
         "earlier CUDA graph of the tree produced")


def test_make_graphed_callables_runs_a_modules_graph_only_in_the_training_state_it_was_captured_in():
    assert "graph_training_state" in inspect.getsource(torch.cuda.graphs.make_graphed_callables)
    says(L6, "cell-09", "a module's graphs run only in the training or eval state it was captured in")


def test_max_autotune_also_widens_the_pointwise_reduction_and_foreach_configs():
    from torch._inductor.runtime import triton_heuristics as heuristics

    for kind in (heuristics.pointwise, heuristics._reduction_configs, heuristics.foreach):
        assert 'get("max_autotune")' in inspect.getsource(kind), kind.__name__
    says(L3, "cell-07", "it also tries more block-size configurations for the generated pointwise, reduction and "
         "foreach kernels")


def test_the_whole_step_with_a_grad_scaler_breaks_at_zero_grad_too():
    assert "`Optimizer.zero_grad` should not be traced" in output(L3, "gradscaler-compiled")
    says(L3, "gradscaler-read", "inside the optimizer's step and at `zero_grad()`")


def test_set_stance_is_a_function_a_context_manager_and_a_decorator():
    assert "Can be used as a function, context manager, or decorator" in inspect.getdoc(torch.compiler.set_stance)
    says(L3, "cell-19", "Call it as a function (it stays in effect until the next call)")


def test_torchs_cuda_generator_is_graph_safe_each_replay_moves_its_offset_again():
    """Lesson 6, section 3: torch's GPU random ops in a capture draw new numbers at each replay (the note in the
    header shipped with torch), a generator of one's own is registered with the graph; the cell that shows it on a
    GPU prints the count of different values over three replays."""
    header = TORCH_DIR / "include" / "ATen" / "cuda" / "CUDAGeneratorImpl.h"
    note = " ".join(line.strip(" *") for line in header.read_text().splitlines())
    assert "Note [CUDA Graph-safe RNG states]" in note
    assert "records the final total as the offset for the entire graph" in note
    assert "increments this device's CUDA generator's offset by that total" in note
    stubs = (TORCH_DIR / "_C" / "__init__.pyi").read_text()  # the CUDA graph's methods, any build
    assert "def register_generator_state(self, Generator) -> None: ..." in stubs
    says(L6, "cell-11", "each replay moves it that far again, so every replay draws new numbers",
         "`CUDAGraph.register_generator_state`")
    assert 'print("torch.rand on the GPU inside the graph, 3 replays ->", len(values), "different values")' in prose(
        L6, "cell-12")
    # and the H200 run of 2026-11-29 evening, the first since the cell was added, printed it so
    assert "torch.rand on the GPU inside the graph, 3 replays -> 3 different values" in output(L6, "cell-12")
    assert "Python random.random() inside the graph, 3 replays -> {" in output(L6, "cell-12")
    assert "(one value: captured once)" in output(L6, "cell-12")


def test_cudagraph_trees_are_trees_because_a_graph_may_be_followed_by_different_children_in_one_pool():
    from torch._inductor import cudagraph_trees

    doc = " ".join(cudagraph_trees.__doc__.split())
    assert "after replaying A, you can change your mind and record/replay a different graph B'" in doc
    assert "using only max(mem(A, B), mem(A, B'))" in doc
    assert "this is why this feature is called CUDA graph trees" in doc
    says(L6, "cell-13", "each recorded as a child of A, and the two paths share the pool, using the memory of the "
         "larger path, not of both")


def test_lesson_4_keep_calls_cell_quiets_the_metrics_logger_that_torch_2_11_fills_with_tracebacks():
    """On the H200 run of 2026-11-29 evening (torch 2.11) the "when a call must stay" cell printed two 22-line
    tracebacks: recording a compile's metrics, torch 2.11 could not write its patched config as JSON. The error is
    caught and logged by torch._dynamo.metrics_context, the compile goes on. The cell quiets that logger while it runs;
    here the same failure is forced on this torch and the quieted logger passes nothing on."""
    earlier = record_dated(L4, "2026-11-29 evening")["cells"]["keep-calls-run-5b3c"]
    assert earlier.count("Unexpected exception logging compilation metrics") == 2
    assert "Object of type method is not JSON serializable" in earlier
    code = prose(L4, "keep-calls-run-5b3c")
    assert 'metrics_log = logging.getLogger("torch._dynamo.metrics_context")' in code
    assert "metrics_log.setLevel(logging.CRITICAL)" in code and "metrics_log.setLevel(metrics_level)" in code

    import logging
    from unittest import mock

    import torch._dynamo.utils as dynamo_utils

    records = []
    handler = logging.Handler()
    handler.emit = records.append
    metrics_log = logging.getLogger("torch._dynamo.metrics_context")
    metrics_log.addHandler(handler)
    level = metrics_log.level

    def compile_once(k):
        torch._dynamo.reset()
        torch.compile(lambda x: x * k + 1, backend="eager")(torch.randn(4))

    broken = mock.patch.object(dynamo_utils, "_get_dynamo_config_for_logging",
                               side_effect=TypeError("Object of type method is not JSON serializable"))
    try:
        with broken:
            compile_once(2.0)
            logged = len(records)
            metrics_log.setLevel(logging.CRITICAL)
            compile_once(3.0)
    finally:
        metrics_log.setLevel(level)
        metrics_log.removeHandler(handler)
        torch._dynamo.reset()
    assert logged >= 1 and "Unexpected exception logging compilation metrics" in records[0].getMessage(), records
    assert len(records) == logged, records[logged:]  # quieted: nothing more


def test_skipping_guards_keeps_tensor_guards_and_guards_that_failed_once_and_silently_drops_the_rest():
    """Lesson 5's skip_guard_eval_unsafe cell, run here: under the stance an int guard that never failed is not
    checked (n = 3 gets n = 2's graph and values), an unseen length raises instead of recompiling, and a guard the
    warm-up made fail once is checked (n = 3 gets its own graph, n = 4 raises). The mechanism the prose names is the
    one in torch's source."""
    from autograder.core.timing import measure
    from autograder.course.context import course_context

    source = (TORCH_DIR / "_dynamo" / "guards.py").read_text()
    assert "def collect_diff_guard_sources" in source
    assert "we have only marked guard managers with" in source
    assert "TENSOR_MATCH guards as diff guard managers" in source
    assert "After a recompilation, some of guard managers will have a fail_count" in source
    assert "skip_guard_eval_unsafe" in inspect.signature(torch.compiler.set_stance).parameters

    try:
        text = run_cell(L5, "skip-guards-run-4e7b", {"torch": torch, "measure": measure,
                                                    "ctx": course_context("cpu", "smoke")})
    finally:
        torch.compiler.set_stance("default")
        torch._dynamo.reset()
    assert re.search(r"per call \(3 rounds\): guards run [\d.]+\.\.[\d.]+ us, guards skipped [\d.]+\.\.[\d.]+ us", text)
    assert ("warmed on n = 2, under the stance: length 64, n = 2 -> n = 2's values | length 128, n = 3 -> n = 2's "
            "values") in text, text
    assert ("warmed on n = 2, under the stance: length 100 -> RuntimeError: Recompilation triggered with "
            "skip_guard_eval_unsafe stance") in text, text
    assert ("warmed on n = 2 and 3, under the stance: n = 3 -> n = 3's values | n = 4 -> RuntimeError: Recompilation "
            "triggered with skip_guard_eval_unsafe stance") in text, text
    says(L5, "skip-guards-md-2c9a", "those on tensors (sizes, dtype, strides...) and those that have failed at least "
         "once", "`collect_diff_guard_sources` in `torch/_dynamo/guards.py`")
    says(L5, "skip-guards-read-8d1f", "`n = 3` ran the `n = 2` graph and returned `n = 2`'s values, with no warning",
         "a recompile under this stance raises", "`n = 4` raised instead of returning wrong ones")


def test_a_job_id_carries_automatic_dynamic_across_processes_and_another_id_learns_again():
    """Lesson 5's PGO cell, run here: three new processes sharing one cache directory compile 2, 1 and 2 graphs for
    lengths 64 and 128 (the same id read the profile the first wrote; another id did not), and the profiles are named
    by id. The prose's sources: job_id's docstring, where the profile is written and why a source edit misses it."""
    from autograder.course.context import course_context

    config_source = (TORCH_DIR / "compiler" / "config.py").read_text()
    assert '"TORCH_COMPILE_JOB_ID"' in config_source
    assert "does nothing (even if explicitly enabled)" in " ".join(config_source.split())
    assert "put_code_state()" in (TORCH_DIR / "_dynamo" / "convert_frame.py").read_text()
    dynamo_config = " ".join((TORCH_DIR / "_dynamo" / "config.py").read_text().split())
    assert "we identify particular code objects # by filename, line number and name of their function" in dynamo_config

    lines = run_cell(L5, "pgo-run-7a3e", {"ctx": course_context("cpu", "smoke")}).splitlines()
    assert lines[:3] == [f"a new process, TORCH_COMPILE_JOB_ID={job}: {n} graph(s) for lengths 64 and 128"
                         for job, n in (("training-run-1", 2), ("training-run-1", 1), ("another-job", 2))], lines
    assert lines[3] == ("profiles in the cache directory: ['code_state_another-job_None_.pkl', "
                        "'code_state_training-run-1_None_.pkl']"), lines
    says(L5, "pgo-md-5b2d", "`torch.compiler.config.job_id`, or the environment variable `TORCH_COMPILE_JOB_ID`",
         "`put_code_state` in `torch/_dynamo/convert_frame.py`")
    says(L5, "pgo-read-3f6c", "The second one, with the same id, compiled once", "A different id learned again")
