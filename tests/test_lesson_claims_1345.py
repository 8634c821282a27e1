"""Claims of lessons 1, 3, 4 and 5 (and their quizzes) that the 2026-11-27 accuracy review corrected, checked
against torch itself: behaviour where a CPU shows it, torch's own source or docstrings where only a GPU would."""

import inspect
import json
import logging
import math
import re

import torch
import torch._dynamo
from conftest import REPO
from lesson_gpu_outputs import earlier_rows

from autograder.core.compile_events import capture_compile_events
from autograder.course import quiz, recompiles
from autograder.course.models import BrokenBlock, make_block_stack, make_encoder
from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain
from autograder.exercises.ex04_graph_breaks.workload import CONFIGS as EX04_CONFIGS

# Lesson 5's demonstration stream: ten new lengths (two past the limit of 8), then three lengths seen before.
LENGTHS = [*range(4, 14), 4, 5, 6]


def _cells(lesson: str) -> list[dict]:
    return json.loads((REPO / "lessons" / f"{lesson}.ipynb").read_text())["cells"]


def _text(lesson: str, kind: str = "markdown") -> str:
    """All cells of one kind, joined, with line breaks folded into spaces (phrases wrap across lines)."""
    return " ".join(" ".join("".join(c["source"]).split()) for c in _cells(lesson) if c["cell_type"] == kind)


def _question(lesson: str, prompt_start: str) -> quiz.Question:
    return next(q for q in quiz.QUIZZES[lesson] if q.prompt.startswith(prompt_start))


class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _serve_stream(make_serve, counter):
    """Per request, how many compiled graphs ran; the recompile-limit warnings Dynamo logged (whole text)."""
    torch._dynamo.reset()
    logger, handler = logging.getLogger("torch._dynamo.convert_frame"), _Warnings()
    logger.addHandler(handler)
    try:
        stream = [torch.randn(1, t, 16) for t in LENGTHS]
        ran = recompiles.graph_runs(make_serve(counter), stream, counter)
    finally:
        logger.removeHandler(handler)
        torch._dynamo.reset()
    return ran, [m for m in handler.messages if "recompile_limit" in m]


# Lesson 5 (N6, N12): with a Python counter in the guards, nothing compiled runs past the limit.
def test_with_the_counter_in_the_guards_no_compiled_graph_runs_past_the_limit_not_even_for_old_lengths():
    model = make_encoder(16, 2, 1, 32)
    counter = recompiles.GraphRunCounter()
    ran, limit_warnings = _serve_stream(lambda c: torch.compile(model, backend=c), counter)
    assert counter.graphs == 8
    assert ran == [1] * 8 + [0] * 5  # requests 9-13 ran eagerly, lengths 4, 5 and 6 (compiled before) included
    # one warning, not silence; its first line is what the lesson prints, the rest says more
    assert len(limit_warnings) == 1
    warning = limit_warnings[0]
    assert warning.splitlines()[0] == "torch._dynamo hit config.recompile_limit (8)"
    assert "last reason" in warning and 'TORCH_LOGS="recompiles"' in warning


# Lesson 4 (N13) and 5: past the limit Dynamo still runs cached graphs whose guards pass.
def test_past_the_limit_a_length_compiled_before_still_runs_its_graph_and_only_new_lengths_run_eagerly():
    model = make_encoder(16, 2, 1, 32)

    def serve_with_counter_outside(backend):
        encode = torch.compile(model.encode, backend=backend, dynamic=False)

        def serve(x):
            model.requests += 1
            return encode(x)

        return serve

    ran, limit_warnings = _serve_stream(serve_with_counter_outside, recompiles.GraphRunCounter())
    assert ran == [1] * 8 + [0, 0] + [1, 1, 1] and len(limit_warnings) == 1


def test_the_limit_makes_the_frame_run_only_in_torchs_own_source():
    """What lesson 5 cites: the limit's branch in convert_frame.py sets RUN_ONLY for the frame and its callees."""
    from torch._dynamo import convert_frame
    from torch._dynamo.types import FrameAction

    source = inspect.getsource(convert_frame)
    assert "FrameAction.RUN_ONLY, FrameAction.RUN_ONLY" in source and FrameAction.RUN_ONLY
    text = _text("05_dynamic_shapes")
    assert "RUN_ONLY" in text and "lengths it compiled still run their graphs" not in text
    assert "Reuse cannot explain the 1.84x" in text and "all Dynamo says" not in _text("05_dynamic_shapes", "code")


def test_brokenblock_past_the_limit_still_runs_the_graphs_before_item_and_runs_the_rest_eagerly():
    """Lesson 4 cell 27-30: Inductor, as the lesson compiles it; two graphs per block keep running."""
    d, depth, batch, seq = EX04_CONFIGS["smoke"]
    logging.getLogger("autograder").setLevel(logging.ERROR)  # BrokenBlock logs each block's spread
    torch._dynamo.reset()
    counter = recompiles.GraphRunCounter(inner="inductor")
    compiled = torch.compile(make_block_stack(BrokenBlock, d, depth), backend=counter)
    gen = torch.Generator().manual_seed(0)
    inputs = [torch.randn(batch, seq, d, generator=gen) + (0.5 if i % 2 else -0.5) for i in range(6)]
    try:
        with capture_compile_events() as events:
            ran = recompiles.graph_runs(compiled, inputs, counter)
    finally:
        torch._dynamo.reset()
    assert events.limit_hits, "the value guards on the .item() float should reach the recompile limit"
    assert ran[0] > 2 * depth and ran[-3:] == [2 * depth] * 3, ran
    code = _text("04_graph_breaks", "code")
    assert "after it, that function runs eagerly" not in code and "a call a cached graph accepts" not in code
    assert "compiled graphs that ran in each call" in code


def test_lesson_5_and_its_quiz_say_what_happens_past_the_limit():
    q = _question("05", "A module's forward does `self.calls += 1`")
    assert "silently" not in q.options[q.answer] and "warning" in q.options[q.answer]
    assert "none matches again" in q.why
    intro = " ".join("".join(_cells("05_dynamic_shapes")[0]["source"]).split())
    assert "still runs that graph" in intro and "runs it **eagerly**" not in intro


# Lesson 5 (5.1): dynamic=True records one CUDA graph per size; the comparison times recordings apart.
def test_cudagraph_trees_keep_one_recording_per_set_of_integer_inputs():
    from torch._inductor import cudagraph_trees

    source = inspect.getsource(cudagraph_trees.cudagraphify_impl)
    assert "fn_cache" in source and "isinstance(v, int)" in source
    cell = next("".join(c["source"]) for c in _cells("05_dynamic_shapes") if c.get("id") == "cell-20")
    assert "first pass" in cell and "every length of the stream has been recorded" in cell


# Lesson 3 (3.3): the Python work that stays per call under reduce-overhead, as torch's source does it.
def test_a_cudagraph_tree_replay_still_checks_and_copies_non_static_inputs_in_python():
    from torch._inductor.cudagraph_trees import CUDAGraphNode, CUDAGraphTreeManager

    run = inspect.getsource(CUDAGraphNode.run)
    assert "check_static_inputs_are_stable" in run and "_copy_inputs_and_remove_from_src" in run
    assert "self.non_static_input_idx" in inspect.getsource(CUDAGraphNode._copy_inputs_and_remove_from_src)
    # static: the compiled function's static inputs (parameters, buffers) and outputs of earlier recorded graphs
    init = inspect.getsource(CUDAGraphNode.__init__)
    assert "static_input_idxs | cudagraph_managed_idxs" in init
    manager_run = inspect.getsource(CUDAGraphTreeManager._run)
    assert "check_invariants" in manager_run and "try_end_curr_execution" in manager_run
    text = _text("03_compile_modes")
    assert "no Python in between" not in text
    assert "copy each non-static input (not parameters, buffers or outputs of an earlier graph)" in text
    assert "evaluates the guards" in text


def test_the_default_mode_range_quoted_in_lesson_3_is_the_recorded_gpu_runs():
    """Lesson 3 cell 9 says 1.4-1.8x over eager for the default mode, with one exception it names: section 2 of the
    H200 run of 2026-11-27 afternoon (0.96x). Every other figure of a lesson-3 GPU run in benchmarks/notebook-runs.md
    agrees (the run of benchmarks/lesson-outputs/, whose row earlier_rows leaves out, and the earlier records are
    checked in tests/test_lesson_claims_gpu_03_04.py)."""
    ratios, exceptions = [], []
    for _, line in earlier_rows("03_compile_modes"):
        launch = re.search(r"eager ([\d.]+) us \(GPU busy \d+%\), default ([\d.]+) us", line)
        stance = re.search(r"compiled ([\d.]+) us, force_eager ([\d.]+) us", line)
        if launch:
            ratio = float(launch[1]) / float(launch[2])
            (ratios if ratio >= 1 else exceptions).append(ratio)
        if stance:
            ratios.append(float(stance[2]) / float(stance[1]))
    assert len(ratios) >= 4 and all(1.35 <= r <= 1.85 for r in ratios), ratios
    # the one exception, wherever notebook-runs.md holds the afternoon row: 1045 us eager against 1084 us default
    assert {round(r, 2) for r in exceptions} <= {0.96}, exceptions
    text = _text("03_compile_modes")
    assert "not reliably faster than eager" not in text and "1.4–1.8x" in text
    if exceptions:
        assert "this section measured the default mode *slower* than eager (1084 against 1045 us, 0.96x)" in text


# Lesson 3 (N8, N9) and Q03.7: stored mantissa bits counted one way; autocast keeps fp32 weights.
def test_mantissa_bits_are_counted_as_stored_bits_everywhere():
    assert torch.finfo(torch.bfloat16).eps == 2.0**-7 and torch.finfo(torch.float32).eps == 2.0**-23
    assert torch.tensor(1 + 2**-8, dtype=torch.float32).to(torch.bfloat16).item() == 1.0  # an 8th stored bit is lost
    doc = " ".join(torch.set_float32_matmul_precision.__doc__.split())
    assert "TensorFloat32 datatype (10 mantissa bits explicitly stored)" in doc
    assert "bfloat16 datatype (8 mantissa bits with 7 bits explicitly stored)" in doc
    text = _text("03_compile_modes")
    assert "10 stored mantissa bits" in text and "7 stored mantissa bits" in text
    assert "8-bit mantissa" not in text and "10-bit mantissa" not in text
    q = _question("03", "A submission wraps its model in torch.autocast")
    assert "7 mantissa bits" in q.why and "keeps 8 mantissa bits" not in q.why
    cell = next("".join(c["source"]) for c in _cells("03_compile_modes") if c.get("id") == "d438ef8c")
    assert "math.log2(torch.finfo(dt).eps)" in cell
    assert round(-math.log2(torch.finfo(torch.bfloat16).eps)) == 7


def test_autocast_training_keeps_weights_gradients_and_optimizer_state_in_float32():
    torch.manual_seed(0)
    tiny = torch.nn.Linear(8, 8)
    opt = torch.optim.AdamW(tiny.parameters())
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = tiny(torch.randn(4, 8))
    out.float().pow(2).mean().backward()
    opt.step()
    assert out.dtype == torch.bfloat16
    assert tiny.weight.dtype == tiny.weight.grad.dtype == opt.state[tiny.weight]["exp_avg"].dtype == torch.float32
    assert "master copy" not in _text("03_compile_modes")


# Lesson 1 (1.2, 1.3) and Q01.3.
def test_compiled_chain_computes_the_same_function_up_to_rounding_and_the_quiz_says_so():
    x, bias = torch.randn(256, 256), torch.randn(256)
    torch._dynamo.reset()
    compiled = torch.compile(gelu_bias_chain)(x, bias)
    torch._dynamo.reset()
    assert torch.allclose(compiled, gelu_bias_chain(x, bias), rtol=1e-5, atol=1e-6)
    q = _question("01", "Which one changes how fast the code executes")
    assert "results equal up to rounding" in q.why and "keeps the math" not in q.why


def test_lesson_1_and_lesson_3_agree_on_what_events_and_do_bench_hide():
    one, three = _text("01_eager_mode"), _text("03_compile_modes")
    assert "measure time *on the GPU*" not in one
    # do_bench's blind spot is per-call timing behind the flush; events around a synchronised block include launches
    assert "clears the L2 cache" in one and "*synchronised block* of calls" in one and "include the gaps" in one
    assert "CUDA events around a synchronised block of calls do include it" in three
    code = _text("01_eager_mode", "code")
    assert "event_per_call_s" in code and "do_bench (CUDA events)" not in code


def test_lesson_4_renders_the_trace_with_tlparse_and_reads_the_ids_the_resume_function_and_the_restart(monkeypatch):
    """Lesson 4's tlparse cell on its own trace (cell-12's subprocess, one `.item()` break): the report's compile ids
    are the first attempt, the restarted one and the resume function's frame; its table's one row is the restart."""
    import os
    import subprocess
    import sys
    import tempfile

    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    cells = {c.get("id"): "".join(c["source"]) for c in _cells("04_graph_breaks")}
    scope = {"os": os, "re": re, "subprocess": subprocess, "sys": sys, "tempfile": tempfile, "json": json}
    exec(cells["cell-12"], scope)
    printed = []
    scope["print"] = lambda *args, **kwargs: printed.append(" ".join(map(str, args)))
    exec(cells["cell-22"], scope)
    out = "\n".join(printed)
    assert "exit status 0" in out, out
    ids = re.findall(r"^\s*(\[\S+\]):", out, re.M)
    assert {"[0/0]", "[0/0_1]", "[1/0]"} <= set(ids), out
    # the resume function's bytecode before and after the rewrite, named after it: torch 2.13 writes them, 2.11 did not
    if tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 13):
        assert re.search(r"\[1/0\]: .*torch_dynamo_resume_in_with_item_at_\d+_ORIGINAL_BYTECODE, .*"
                         r"torch_dynamo_resume_in_with_item_at_\d+_MODIFIED_BYTECODE", out), out
    restarts = re.findall(r"^failure or restart: (\S+) (\w+): (.*)$", out, re.M)
    assert len(restarts) == 1 and restarts[0][1] == "RestartAnalysis" and "Tensor.item()" in restarts[0][2], out
    assert len(shown) == 1 and "RestartAnalysis" in shown[0].data
    text = _text("04_graph_breaks")
    for phrase in ("`[0/0]` is `with_item`'s first attempt", "`torch_dynamo_resume_in_with_item_at_37`",
                   "the **resume function** Dynamo generated for the code after the break",
                   "the table's one row is the restart", "torch 2.13 also writes its bytecode before and after "
                   "Dynamo's rewrite as artifacts named after it"):
        assert phrase in text, phrase


def test_lesson_4_keeps_a_print_a_logger_call_and_a_c_call_in_one_graph_at_the_price_it_names(capsys):
    """Lesson 4's cell on reorderable_logging_functions, ignore_logger_methods and nonstrict_trace, run on a CPU: one
    graph each where the prose says so; the reordered print shows the value after the in-place add; a logger method
    cannot be reordered; an ignored logger call leaves no record from the compiled call."""
    import torch._dynamo.config as dynamo_config

    from autograder.course import breaks
    from autograder.course.context import course_context

    cells = {c.get("id"): "".join(c["source"]) for c in _cells("04_graph_breaks")}
    exec(cells["keep-calls-run-5b3c"], {"torch": torch, "breaks": breaks, "ctx": course_context("cpu", "smoke")})
    out = capsys.readouterr().out
    for fn in ("with_print", "prints_tensor_then_mutates"):
        assert f"{fn}, print reorderable: 1 graph(s), 0 break(s)" in out, out
    eager, compiled = (float(v) for v in re.findall(r"y\[0\] at the print: tensor\(\[([-\d.]+)\]\)", out))
    assert abs(compiled - (eager + 1)) < 1e-4, out  # printed after the graph: after add_(1)
    assert "with_logging, print reorderable: 2 graph(s), 1 break(s): logging.Logger method not supported" in out, out
    assert ("with_logging, log.info ignored: 1 graph(s), 0 break(s); log records: 0 from the compiled call, 1 from "
            "the eager call") in out, out
    assert ("untraceable_inside, crc32 behind nonstrict_trace: 1 graph(s), 0 break(s); same values as "
            "with_untraceable_call: True") in out, out
    assert "does not correctly print objects that were mutated after the print statement" in " ".join(
        line.lstrip("# ") for line in inspect.getsource(dynamo_config).splitlines())
    text = _text("04_graph_breaks")
    for phrase in ("it showed `y[0]` *after* `add_(1)`, one more than eager's", "The logger call could not be "
                   "reordered; ignored, it left no record from the compiled call and one from the eager call",
                   "Behind `nonstrict_trace` the C call no longer breaks the graph"):
        assert phrase in text, phrase
