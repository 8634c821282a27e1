"""The helpers lessons use: profiler counts, plots and the quiz."""

import matplotlib
import pytest
import torch

from autograder.core.profiling import profile_call
from autograder.course import plots, quiz
from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain

matplotlib.use("Agg")


def test_profiler_counts_one_operator_per_eager_op_and_one_region_compiled():
    x, bias = torch.randn(64, 64), torch.randn(64)
    eager = profile_call(gelu_bias_chain, x, bias)
    compiled = profile_call(torch.compile(gelu_bias_chain), x, bias)
    assert eager.count == 10 and eager.short_names() == {"aten::add": 3, "aten::mul": 6, "aten::tanh": 1}
    assert compiled.count == 1 and "Torch-Compiled Region" in next(iter(compiled.kernels))


def test_break_even_is_compile_time_over_the_saving_per_call():
    fig, n = plots.break_even(eager_s=0.003, compiled_s=0.001, compile_s=2.0)
    assert n == pytest.approx(1000)
    fig, n = plots.break_even(eager_s=0.001, compiled_s=0.002, compile_s=2.0)
    assert n == float("inf")


@pytest.mark.parametrize("lesson", sorted(quiz.QUIZZES))
def test_every_quiz_question_has_a_valid_answer_and_an_explanation(lesson):
    for n, q in enumerate(quiz.QUIZZES[lesson], 1):
        assert 0 <= q.answer < len(q.options) and len(q.options) >= 3 and q.why
        assert quiz.answer(lesson, n, q.answer).startswith("Correct.")
        wrong = (q.answer + 1) % len(q.options)
        assert quiz.answer(lesson, n, wrong).startswith("Not quite")


def test_quiz_widgets_show_code_as_code_not_backticks(monkeypatch):
    """Issue 40: in JupyterLab the questions showed their backticks literally."""
    import ipywidgets

    from autograder.course import display as course_display

    shown = []
    monkeypatch.setattr(course_display, "_in_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append(obj))
    quiz.show("01")
    widgets = [w for box in shown[0].children for w in box.children]
    html_text = " ".join(w.value for w in widgets if isinstance(w, ipywidgets.HTML))
    labels = [label for w in widgets if isinstance(w, ipywidgets.RadioButtons) for label, _ in w.options]
    assert "<code>" in html_text and "`" not in html_text and not any("`" in label for label in labels)
    radio = next(w for w in shown[0].children[0].children if isinstance(w, ipywidgets.RadioButtons))
    radio.value = quiz.QUIZZES["01"][0].answer
    next(w for w in shown[0].children[0].children if isinstance(w, ipywidgets.Button)).click()
    assert "Correct" in shown[0].children[0].children[-1].value


def test_quiz_prints_without_a_notebook_frontend(capsys):
    quiz.show("01")
    assert "Q1." in capsys.readouterr().out


def test_mode_table_names_what_each_mode_switches_on():
    from autograder.course import modes

    table = modes.mode_options()
    assert table["reduce-overhead"] == {"triton.cudagraphs": True}
    assert table["max-autotune"]["max_autotune"] and table["max-autotune"]["triton.cudagraphs"]
    assert "triton.cudagraphs" not in table["max-autotune-no-cudagraphs"]


def test_measure_modes_times_every_mode_and_the_slow_one_is_slower():
    from autograder.course import modes

    class Slow(torch.nn.Module):  # known cost: a 3 ms sleep per call on top of a tiny matmul
        def forward(self, x):
            import time
            time.sleep(0.003)
            return x @ x

    rows = modes.measure_modes(Slow, torch.randn(4, 4), ["eager"], cold=False, blocks=3)
    fast = modes.measure_modes(lambda: torch.nn.Identity(), torch.randn(4, 4), ["eager"], cold=False, blocks=3)
    assert [r.mode for r in rows] == ["eager"] and rows[0].gpu_busy is None
    assert 0.003 <= rows[0].per_call_s < 0.02 and fast[0].per_call_s < 0.001


def test_compile_vs_run_and_batch_plots_draw_one_panel_per_workload():
    from autograder.course.modes import ModeResult

    fig = plots.compile_vs_run({"a": [ModeResult("eager", 0.0, 1e-3, None), ModeResult("default", 2.0, 5e-4, 0.3)],
                                "b": [ModeResult("eager", 0.0, 2e-3, None)]}, "t")
    assert len(fig.axes) == 2
    fig = plots.times_by_batch({"eager": {1: 1e-3, 4: 2e-3}, "default": {1: 5e-4, 4: 1e-3}}, "t")
    assert len(fig.axes) == 2


# What max-autotune printed for one matmul on the H200 (torch 2.11), trimmed to three candidates.
AUTOTUNE_OUTPUT = """Autotune Choices Stats:
{"num_choices": 19, "num_triton_choices": 18, "best_kernel": "mm", "best_time": 0.010208000428974628}
AUTOTUNE mm(16x512, 512x512)
strides: [512, 1], [1, 512]
dtypes: torch.float32, torch.float32
  mm 0.0102 ms 100.0%\x20
  triton_mm_4 0.0169 ms 60.4% ACC_TYPE='tl.float32', ALLOW_TF32=False, BLOCK_K=128, BLOCK_M=16, num_warps=2
  triton_mm_3 0.0169 ms 60.3% ACC_TYPE='tl.float32', ALLOW_TF32=False, BLOCK_K=32, BLOCK_M=16, num_warps=2
SingleProcess AUTOTUNE benchmarking takes 6.2368 seconds and 0.0002 seconds precompiling for 19 choices
"""


def test_max_autotunes_tables_become_one_line_per_op_and_other_stderr_still_shows(capsys):
    import logging
    import sys

    from autograder.course.modes import autotune_summary

    with autotune_summary() as notes:
        sys.stderr.write(AUTOTUNE_OUTPUT)
        logging.getLogger("torch._inductor.select_algorithm").error(
            "Runtime error during autotuning: \nout of resource: triton_mm. \nIgnoring this choice.")
        sys.stderr.write("UserWarning: something else\n")
    assert notes == ["autotuned mm(16x512, 512x512): 19 candidate kernels timed in 6.2 s; fastest mm (10.2 us)",
                     "1 Triton config(s) did not fit this GPU and were skipped"]
    err = capsys.readouterr().err
    assert "UserWarning: something else" in err and "AUTOTUNE" not in err and "Runtime error" not in err


def test_precision_study_measures_bf16_error_and_puts_the_matmul_precision_back():
    from autograder.course import precision
    from autograder.course.models import make_mlp

    before = torch.get_float32_matmul_precision()
    rows = precision.measure_precisions(make_mlp(32, 1), torch.randn(8, 32), blocks=2)
    assert [(r.precision, r.compiled) for r in rows] == [(p, c) for p in precision.PRECISIONS for c in (False, True)]
    err = {(r.precision, r.compiled): r.rel_error for r in rows}
    assert err[("fp32", False)] < 1e-5 and err[("fp32", True)] < 1e-5
    assert err[("bf16 autocast", False)] > 1e-4 and err[("bf16 autocast", True)] > 1e-4  # 8 mantissa bits
    assert torch.get_float32_matmul_precision() == before
    with pytest.raises(ValueError, match="unknown precision"):
        with precision.precision("fp8", "cpu"):
            pass


def test_cuda_graph_skips_are_logged_where_the_lessons_send_a_learner(capfd):
    """Lessons 2 (the troubleshooting map), 4 and 6 send a learner to TORCH_LOGS="cudagraphs" for why CUDA graphs were
    skipped ("perf_hints" only before torch 2.11): on the installed torch the skip is a record of the cudagraphs
    artifact (a warning, so it prints even without TORCH_LOGS), not of perf_hints."""
    import json

    from torch._inductor import cudagraph_utils

    from autograder.tools.paths import REPO

    capfd.readouterr()
    torch._logging.set_logs(cudagraphs=True)
    try:
        cudagraph_utils.log_cudagraph_skip_and_bump_counter("skipping cudagraphs due to a probe")
    finally:
        torch._logging.set_logs()
    printed = capfd.readouterr()
    line = next(line for line in (printed.err + printed.out).splitlines() if "due to a probe" in line)
    assert "[__cudagraphs]" in line and "perf_hints" not in line
    for lesson in ("02_compile_pipeline", "04_graph_breaks", "06_cuda_graphs"):
        text = "".join("".join(c["source"]) for c in json.loads((REPO / "lessons" / f"{lesson}.ipynb").read_text())[
            "cells"])
        assert 'TORCH_LOGS="cudagraphs"' in text, lesson


def test_profiling_a_call_writes_nothing_to_stderr():
    """Issue 40: lesson 1 opened with red stderr boxes: Kineto's "USDT: ... profiler_start/stop" lines, written from
    C++ to file descriptor 2. What the cell itself writes there afterwards still shows."""
    import os
    import subprocess
    import sys

    from autograder.tools.paths import REPO

    code = ("import sys, torch\nfrom autograder.core.profiling import profile_call\n"
            "profile_call(lambda x: torch.nn.functional.gelu(x) * 2, torch.randn(64))\n"
            "print('after', file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "after", done.stderr


def test_lesson_3s_precision_and_memory_claims_say_what_torchs_own_source_says():
    """The 2026-11-27 accuracy review (N3, N4): CUDAGraph Trees share one pool (not one per graph), and
    set_float32_matmul_precision leaves convolutions alone (cudnn.allow_tf32, on by default, governs them)."""
    import json

    import torch._inductor.cudagraph_trees as trees

    from autograder.tools.paths import REPO

    cells = json.loads((REPO / "lessons" / "03_compile_modes.ipynb").read_text())["cells"]
    text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "share the same memory pool" in " ".join(trees.__doc__.split())
    assert "each graph keeps its own pool" not in text and "one private pool" in text
    precision_doc = " ".join(torch.set_float32_matmul_precision.__doc__.split())
    assert "does not change the precision of convolution" in precision_doc
    assert "matmuls and convolutions change" not in text and "cudnn.allow_tf32" in text


def test_lesson_6s_skip_claims_say_what_torchs_own_source_says():
    """The 2026-11-27 accuracy review (N10, N11): mutating a static input (parameter, buffer, an earlier replay's
    output) does not skip CUDA graphs, and with graph partitioning a graph failing Inductor's compile-time tests
    is left ungraphed without a log, a count or an error. If torch changes either, this fails: the lesson's
    section "When CUDAGraph Trees skip" must change with it."""
    import inspect
    import json

    import torch._inductor.config as inductor_config
    import torch._inductor.cudagraph_utils as cudagraph_utils
    import torch._inductor.output_code as output_code

    from autograder.tools.paths import REPO

    assert inductor_config.triton.cudagraph_support_input_mutation and inductor_config.graph_partition
    mutation = inspect.getsource(cudagraph_utils.check_for_mutation)
    assert "idx in func.static_input_idxs" in mutation and "is_cuda_graph_recorded_tensor" in mutation
    silent = inspect.getsource(output_code.cudagraph_partition_post_compile)
    early = silent[silent.index("cudagraph_fail_reasons\n"):]
    early = early[:early.index("return") + len("return")]  # the branch for a graph that failed the tests
    assert "BoxedBool.disable(cudagraphs)" in early and "log_cudagraph_skip" not in early and "counters" not in early
    cells = json.loads((REPO / "lessons" / "06_cuda_graphs.ipynb").read_text())["cells"]
    text = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "A function that mutates its input runs without CUDA graphs" not in text
    assert "parameters and buffers" in text and "They see **most** skips, not all" in text


def test_a_refused_capture_is_reported_by_its_first_error_not_the_one_ending_the_capture(monkeypatch):
    """Lesson 6, section 3 (2026-11-27 GPU review: ".item()" printed "operation failed due to a previous error
    during capture", which reads like a broken GPU): torch.cuda.graph's exit raises again after a refused call;
    the line names the first error and the cause."""
    from autograder.course import cudagraphs

    def capture(fn, x):
        try:
            raise RuntimeError("CUDA error: operation not permitted when stream is capturing")
        finally:  # what torch.cuda.graph.__exit__ does: capture_end() raises over the first error
            raise RuntimeError("CUDA error: operation failed due to a previous error during capture")

    monkeypatch.setattr(cudagraphs, "capture", capture)
    monkeypatch.setattr(cudagraphs.torch.cuda, "synchronize", lambda: None)
    line = cudagraphs.try_capture("t.sum().item()", None, None, why="a sync: .item() waits")
    assert line == ("t.sum().item(): refused (a sync: .item() waits): RuntimeError: CUDA error: operation not "
                    "permitted when stream is capturing")
