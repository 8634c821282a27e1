"""Lesson 3, section 8's mixed-precision depth (issue 39 item 3): compiled bf16 against eager bf16 and
``emulate_precision_casts``; bf16 autocast in a compiled training step; fp16 underflow and ``GradScaler`` under
torch.compile. Each claim is checked on the CPU by running the lesson's own cell code (or torch's source, where the
claim is about torch); what the prose says of a GPU is checked against the recorded GPU runs that have the cell
(the H200 run of 2026-11-27 afternoon was the first; the tests read it by its date, wherever the records keep it).
Each test also checks that the prose still says what it checks."""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import math
import re

import pytest
import torch
import torch._dynamo
from lesson_gpu_outputs import AFTERNOON, earlier_records, earlier_rows, prose, recorded, says

from autograder.core.compile_events import capture_compile_events
from autograder.course import precision
from autograder.course.context import course_context

L3 = "03_compile_modes"


def _said(cell: str, *phrases: str) -> None:
    """Each phrase is in that cell's source (line breaks folded)."""
    says(L3, cell, *phrases)


def _records() -> list[dict]:
    """Every recorded GPU run of the lesson: the record and the earlier ones."""
    return [recorded(L3), *earlier_records(L3)]


def _gpu_outputs(cell: str) -> list[str]:
    """What the cell printed in every recorded GPU run that has it (at least one)."""
    found = [rec["cells"][cell] for rec in _records() if cell in rec["cells"]]
    assert found, f"no recorded GPU run has cell {cell!r}"
    return found


def _afternoon(cell: str) -> str:
    """What the cell printed in the H200 run of 2026-11-27 afternoon, the run the prose quotes."""
    found = [rec for rec in _records() if rec["date"] == AFTERNOON]
    assert len(found) == 1 and found[0]["gpu"] == "NVIDIA H200", [rec["date"] for rec in _records()]
    return found[0]["cells"][cell]


def _run_cell(cell: str, namespace: dict | None = None, *, until: str | None = None) -> dict:
    """Execute a lesson cell's code on the CPU at smoke size (up to the line starting ``until``, if given), in
    ``namespace`` (a fresh one with what the lesson's first cell imports, if None); its printing is swallowed."""
    source = prose(L3, cell)
    if until is not None:
        source = source[:source.index(until)]
    if namespace is None:
        namespace = {"torch": torch, "ctx": course_context("cpu", "smoke"), "precision": precision,
                     "capture_compile_events": capture_compile_events, "copy": copy, "math": math}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, f"{L3}:{cell}", "exec"), namespace)  # noqa: S102
    return namespace


@pytest.fixture
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


# ---------------------------------------------------------------------------------------------------------------
# Compiled bf16 is not eager bf16


def test_compiled_bf16_rounds_once_and_emulate_precision_casts_rounds_like_eager(fresh_dynamo):
    ns = _run_cell("bf16-chain")
    out, exact, n = ns["chain_out"], ns["exact"], ns["n"]
    eager, compiled = out["eager bf16"], out["compiled"]
    emulated, once = out["compiled, emulate_precision_casts"], out["fp32 throughout, rounded once"]
    assert eager.dtype == compiled.dtype == emulated.dtype == torch.bfloat16
    assert exact.abs().max() < 1  # the chain stays bounded, as its comment says
    # the fused kernel computes in fp32 and rounds once: bit for bit the fp32 chain rounded at the end
    assert torch.equal(compiled, once)
    # ... which is not eager's answer: a large share of the elements differ
    assert (compiled != eager).sum().item() > n // 10
    # emulate_precision_casts rounds after every op, as eager does: bit for bit eager's answer
    assert torch.equal(emulated, eager)
    rel = {k: precision.relative_error(v, exact) for k, v in out.items()}
    worst = {k: (v.double() - exact).abs().max().item() for k, v in out.items()}
    assert rel["eager bf16"] > 2 * rel["compiled"]
    assert 8.5 <= worst["eager bf16"] / worst["compiled"] < 9.5
    _said("bf16-vs-eager", "**every op rounds**", "**rounds once**", "emulate_precision_casts",
          "a chain of 30 multiplies, adds and subtracts")
    assert round(worst["eager bf16"] / worst["compiled"]) == 9
    _said("bf16-chain-read", "more than twice the compiled error, and 9x (a CPU) to 12x (the H200) its largest error",
          "On a CPU with torch 2.13 the compiled kernel returned *exactly* the fp32 chain rounded once (0 elements "
          "differ)", "returned eager's bits (0 elements differ from eager bf16) and eager's error, on that CPU and on "
                     "the H200")
    assert "not yet run this cell on a GPU" not in prose(L3, "bf16-chain-read")
    code = prose(L3, "bf16-chain")
    assert "range(6)" in code and "x = x * w + b" in code and "x = x * x * 0.5 - 0.75" in code  # 6 x 5 ops = 30


def test_the_switches_the_prose_names_are_torchs_own():
    from torch._inductor import compiler_bisector, config
    from torch._inductor.codegen import cpp, triton

    assert config.emulate_precision_casts is False  # off by default: compiled bf16 differs from eager by default
    assert config.triton.codegen_upcast_to_fp32 is True
    assert 'ConfigChange("inductor", "emulate_precision_casts", True)' in inspect.getsource(compiler_bisector)
    assert hasattr(cpp.CppKernelProxy, "legalize_lowp_fp_dtype")  # bf16/fp16 loads upcast to fp32, cast back at stores
    assert '"enable_fp_fusion": not config.emulate_precision_casts' in inspect.getsource(triton)
    _said("bf16-vs-eager", "`torch._inductor.config.triton.codegen_upcast_to_fp32`, on by default",
          "`legalize_lowp_fp_dtype` in `torch/_inductor/codegen/cpp.py`",
          'options={"emulate_precision_casts": True}', "`torch._inductor.compiler_bisector`")
    _said("bf16-chain-read", "Triton's `enable_fp_fusion`")


def _chain_rows(out: str) -> dict[str, tuple[float, float, int, int]]:
    """The bf16-chain table: {row: (relative error, max error, elements differing from eager bf16, from fp32 rounded
    once)}."""
    return {m[1]: (float(m[2]), float(m[3]), int(m[4]), int(m[5])) for m in re.finditer(
        r"(?m)^\s*(.+?)\s+([\d.]+e[+-]\d+)\s+([\d.]+e[+-]\d+) \|\s+(\d+)\s+(\d+)\s*$", out)}


def test_on_the_h200_emulate_precision_casts_gave_eagers_bits_and_the_compiled_kernel_differed_in_11_elements():
    for out in _gpu_outputs("bf16-chain"):
        rows = _chain_rows(out)
        assert len(rows) == 4, out
        assert rows["compiled, emulate_precision_casts"][2] == 0  # eager's bits
        assert rows["eager bf16"][0] > 2 * rows["compiled"][0]
    out = _afternoon("bf16-chain")
    rows = _chain_rows(out)
    assert "elements (of 4194304)" in out
    assert rows["compiled"][3] == 11 and rows["compiled"][:2] == rows["fp32 throughout, rounded once"][:2]
    assert rows["compiled, emulate_precision_casts"][:2] == rows["eager bf16"][:2]
    assert round(rows["eager bf16"][1] / rows["compiled"][1]) == 12
    _said("bf16-chain-read", "On the H200 the compiled Triton kernel differed from the fp32-rounded-once result in 11 "
                             "of its 4,194,304 elements, with the same errors to two digits")


def _precision_table_bf16() -> list[dict[str, float]]:
    """The bf16 autocast rows' relative errors in every run with the precision table: the records and the rows of
    notebook-runs.md that have it."""
    runs = []
    for rec in _records():
        rows = re.findall(r"bf16 autocast\s+(eager|compiled):.*?relative error ([\d.e+-]+)", rec["cells"]["d438ef8c"])
        runs.append({how: float(err) for how, err in rows})
    for _, line in earlier_rows(L3):
        m = re.search(r"bf16 autocast eager [\d.]+ us \(([\d.e-]+), [\d.]+x\), compiled [\d.]+ us \(([\d.e-]+),", line)
        if m:
            runs.append({"eager": float(m[1]), "compiled": float(m[2])})
    return runs


def test_the_recorded_gpu_runs_put_compiled_bf16_nearer_fp64_than_eager_bf16():
    """The prose quotes the precision table's bf16 rows: every run that has the table (records and notebook-runs.md
    rows; the morning run of 2026-11-27 is both)."""
    runs = _precision_table_bf16()
    assert len(runs) >= 3, runs
    for run in runs:
        assert run["compiled"] < run["eager"], run
        assert (f"{run['compiled']:.1e}", f"{run['eager']:.1e}") == ("2.0e-03", "2.3e-03"), run
    assert [rec["gpu"] for rec in _records()] == ["NVIDIA H200"] * 3  # 2026-11-27 (two) and 2026-11-29 evening
    assert "H100" in {gpu for gpu, line in earlier_rows(L3) if "Precision" in line}
    _said("bf16-vs-eager", "in every recorded GPU run (the H100 run and the three H200 runs) compiled bf16 autocast "
                           "landed *closer* to float64 than eager bf16 (relative error 2.0e-3 against 2.3e-3)")


# ---------------------------------------------------------------------------------------------------------------
# Training under autocast, compiled


def _training_defs() -> dict:
    return _run_cell("amp-training", until='eager_losses, eager_grads, _ = train_bf16("eager")')


def test_autocast_inside_or_outside_the_compiled_function_one_graph_no_recompiles_and_eager_within_tolerance(
        fresh_dynamo):
    ns = _training_defs()
    train = ns["train_bf16"]
    eager_losses, eager_grads, eager_events = train("eager")
    assert eager_events.graphs == 0
    results = {}
    for placement in ("autocast outside", "autocast inside"):
        losses, grads, events = train(placement)
        assert (events.graphs, len(events.graph_breaks), len(events.recompiles)) == (1, 0, 0), events.summary()
        loss_diff = max(abs(a - b) / abs(b) for a, b in zip(losses, eager_losses, strict=True))
        grad_diff = max(precision.relative_error(g, e) for g, e in zip(grads, eager_grads, strict=True))
        assert 0 < loss_diff <= ns["LOSS_RTOL"] and 0 < grad_diff <= ns["GRAD_RTOL"], (placement, loss_diff, grad_diff)
        results[placement] = ([f"{v:.6f}" for v in losses], f"{loss_diff:.1e}", f"{grad_diff:.1e}")
    # the same model graph either way (the loss is inside it only in the second): the same printed numbers
    assert results["autocast outside"] == results["autocast inside"]
    # what the lesson quotes; the loss difference moved between CPU runs (1.8e-4 until 2026-11-27, 1.6e-4 in the
    # environments built on 2026-11-29, torch 2.13.0 both times), so the prose gives the range
    loss_said, grad_said = results["autocast inside"][1:]
    assert 1.5e-4 <= float(loss_said) <= 1.9e-4 and grad_said == "4.8e-03", (loss_said, grad_said)
    assert (ns["LOSS_RTOL"], ns["GRAD_RTOL"]) == (1e-3, 1e-2)
    _said("amp-training-read", "Both placements run, compile one graph each",
          "do not recompile over the steps", "They agree with each other to every printed digit",
          "on the CPU they stayed within the cell's tolerances (the losses 1.6e-4 to 1.8e-4 apart over our CPU "
          "runs, the gradients 4.8e-3, about "
          "bf16's resolution)")


def _amp_lines(out: str) -> dict[str, tuple[list[str], str]]:
    """{placement: (printed losses, the rest of its line)} from the amp-training cell's output."""
    return {m[1]: (m[2].split(", "), m[3]) for m in re.finditer(r"(?m)^\s*([\w ]+): losses ([\d., ]+?)(?: \| (.*))?$",
                                                                out)}


def test_on_the_h200_both_placements_agreed_but_the_losses_drifted_outside_the_cells_1e_3_over_four_steps():
    for out in _gpu_outputs("amp-training"):
        lines = _amp_lines(out)
        assert lines["autocast outside"] == lines["autocast inside"], out  # to every printed digit
        assert lines["autocast inside"][1] == "1 graph(s), 0 break(s), 0 recompile(s)", out
    out = _afternoon("amp-training")
    lines = _amp_lines(out)
    eager, compiled = ([float(v) for v in lines[k][0]] for k in ("eager", "autocast inside"))
    drift = [abs(a - b) / abs(b) for a, b in zip(compiled, eager, strict=True)]
    assert max(drift) == drift[3] and f"{drift[3]:.1e}" == "1.3e-03" and drift[3] > 1e-3, drift
    assert (lines["eager"][0][0], lines["autocast inside"][0][0]) == ("1.039319", "1.039328")
    assert out.count("against eager: losses 1.3e-03, first gradients 4.9e-03 relative -> OUTSIDE 1e-03 / 1e-02") == 2
    _said("amp-training-read", "They agree with each other to every printed digit, on the CPU and on the H200",
          "On the H200 (the afternoon run of 2026-11-27) the first step's gradients were 4.9e-3 apart, within 1e-2, "
          "and its loss 1.039328 against eager's 1.039319, but over the four steps the losses came up to 1.3e-3 "
          "apart, outside the cell's 1e-3 (it printed OUTSIDE)")


def test_a_function_compiled_under_the_callers_autocast_compiles_again_when_called_outside_it(fresh_dynamo):
    ns = _training_defs()
    model = copy.deepcopy(ns["start_model"])
    compiled = torch.compile(lambda x, y: torch.nn.functional.mse_loss(model(x), y))  # "autocast outside"
    x, y = ns["train_batches"][0]
    with capture_compile_events() as events:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            compiled(x, y).backward()
        compiled(x, y)  # an fp32 evaluation of the same compiled function
    assert (events.graphs, len(events.recompiles)) == (2, 1), events.summary()
    assert "GLOBAL_STATE changed: autocast" in str(events.recompiles[0])
    assert 'compiled = torch.compile(forward_loss)' in prose(L3, "amp-training")
    _said("bf16-chain-read", "The autocast state is then a guard of the compiled function: as the precision cell "
                             "showed, calling it outside autocast (an fp32 evaluation, say) compiles a second graph")


def test_the_compiled_backward_assumes_the_forwards_autocast_by_default():
    from torch._functorch import config

    assert config.backward_pass_autocast == "same_as_forward"
    comment = inspect.getsource(config)
    assert '- "off". We assume that the backward of the torch.compile\'d region will' in comment
    assert "or a list of kwargs dicts that represent an autocast context manager" in comment
    assert "backward_pass_autocast" in prose(L3, "amp-training")
    _said("amp-training-read", '`torch._functorch.config.backward_pass_autocast = "same_as_forward"`',
          '`"off"` or a list of `torch.autocast` keyword dicts')


# ---------------------------------------------------------------------------------------------------------------
# fp16 needs a loss scale; bf16 does not


def test_fp16_has_bf16s_precision_plus_three_bits_but_not_its_range():
    fp16, bf16, fp32 = (torch.finfo(t) for t in (torch.float16, torch.bfloat16, torch.float32))
    assert (fp16.eps, bf16.eps) == (2.0**-10, 2.0**-7)  # 10 and 7 stored mantissa bits
    assert f"{fp16.smallest_normal:.1e}" == "6.1e-05" and bf16.smallest_normal == fp32.smallest_normal
    tiny = torch.tensor([1e-8, 1e-9])
    assert torch.equal(tiny.half(), torch.zeros(2, dtype=torch.float16))  # flushed to zero
    assert torch.tensor(2.0**-24).half().item() == 2.0**-24 and torch.tensor(2.0**-26).half().item() == 0
    assert (tiny.bfloat16().float() / tiny - 1).abs().max() < 2**-8  # bf16 keeps them
    scaled = (tiny * 2.0**16).half().float() / 2.0**16
    assert (scaled / tiny - 1).abs().max() < 2**-10  # scaled, fp16 keeps them too
    _said("amp-training-read", "fp16 stores more mantissa bits than bf16 (10 against 7) but has 5 exponent bits",
          "smallest normal number is about 6.1e-5 and its smallest nonzero one 2**-24 (about 6e-8)")


def test_unscaled_fp16_gradients_underflow_to_zero_and_the_loss_scale_keeps_them(fresh_dynamo):
    ns = _run_cell("fp16-underflow")
    grads = ns["backward_grads"]
    fp32_out, fp32_w = grads(None, 1.0)
    assert fp32_out.abs().max() < 2.0**-25  # below half of fp16's smallest subnormal: it rounds to zero
    assert f"{fp32_out.abs().max().item():.1e}" == "1.6e-08"
    out16, w16 = grads(torch.float16, 1.0)
    assert (out16 == 0).all() and (w16 == 0).all()
    out_s, w_s = grads(torch.float16, ns["SCALE"])
    out_b, w_b = grads(torch.bfloat16, 1.0)
    assert (w_s != 0).all() and (w_b != 0).all() and (out_s != 0).any()
    err_scaled, err_bf16 = precision.relative_error(w_s, fp32_w), precision.relative_error(w_b, fp32_w)
    assert f"{err_scaled:.0e}" == "5e-04" and f"{err_scaled:.1e}" == "5.3e-04", err_scaled
    assert round(err_bf16 / err_scaled) == 9, (err_scaled, err_bf16)
    assert ns["SCALE"] == inspect.signature(torch.amp.GradScaler).parameters["init_scale"].default == 2.0**16
    _said("fp16-underflow-read", "Unscaled, the gradient reaching the model's fp16 output (at most 1.6e-8 in fp32 on "
                                 "a CPU, 1.3e-8 on the H200: the batch is drawn on the device) was below fp16's "
                                 "smallest nonzero number and rounded to zero",
          "Scaled by 2**16 (GradScaler's default initial scale) they survived, with an error of about 5e-4 against "
          "fp32 (5.3e-4 on the CPU, 6.1e-4 on the H200); bf16 kept them unscaled, with 9x (CPU) and 7.5x (H200) that "
          "error")


def test_on_the_h200_unscaled_fp16_gradients_were_all_zero_and_the_scaled_ones_survived():
    def row(out: str, label: str) -> tuple[float, int, float]:
        m = re.search(rf"(?m)^\s*{re.escape(label)}: output gradients up to ([\d.e+-]+) \| first layer's weight "
                      r"gradients\s+(\d+)% zero, error against fp32 ([\d.e+-]+)$", out)
        assert m, (label, out)
        return float(m[1]), int(m[2]), float(m[3])

    for out in _gpu_outputs("fp16-underflow"):
        assert row(out, "fp32")[0] < 2.0**-25 and row(out, "fp16")[:2] == (0.0, 100)
        assert row(out, "fp16, loss x 2**16")[1] == 0 and row(out, "bf16")[1] == 0
    out = _afternoon("fp16-underflow")
    scaled, bf16 = row(out, "fp16, loss x 2**16")[2], row(out, "bf16")[2]
    assert (row(out, "fp32")[0], scaled, bf16, round(bf16 / scaled, 1)) == (1.3e-8, 6.1e-4, 4.6e-3, 7.5)


def test_gradscaler_skips_overflowing_steps_and_halves_the_scale_with_the_forward_compiled(fresh_dynamo):
    ns = _run_cell("fp16-underflow")
    _run_cell("gradscaler-compiled", ns, until="runs = {how: train_fp16(how)")
    eager_losses, eager_scales, _ = ns["train_fp16"]("eager")
    losses, scales, events = ns["train_fp16"]("forward compiled")
    assert scales == eager_scales == [2.0**24, 2.0**23, 2.0**22, 2.0**21, 2.0**20, 2.0**20]
    # four steps skipped: the weights, and so the loss on the same batch, did not move; the fifth step was taken
    assert len(set(losses[:5])) == 1 and losses[5] != losses[4]
    assert [f"{v:.5f}" for v in losses] == [f"{v:.5f}" for v in eager_losses]  # the digits the cell prints
    assert (events.graphs, len(events.graph_breaks), len(events.recompiles)) == (1, 0, 0), events.summary()
    _said("gradscaler-read", "On the CPU all three skipped the first four steps", "from 2**24 to 2**20",
          "then stepped, with the same losses to every printed digit",
          "With the scaler outside, the compiled forward is one graph and nothing breaks")


def _scaler_rows(out: str) -> dict[str, tuple[list[str], list[str], str]]:
    """{how: (scales, printed losses, graphs line)} from the gradscaler-compiled cell's output."""
    return {m[1]: (m[2].split(", "), m[3].split(", "), m[4]) for m in re.finditer(
        r"(?m)^\s*([\w ]+): scale per step ([\d*, ]+)\n\s+losses ([\d., ]+) \| (.*)$", out)}


def test_on_the_h200_gradscaler_skipped_three_steps_and_compiled_the_same_graphs_and_breaks_as_on_the_cpu():
    for out in _gpu_outputs("gradscaler-compiled"):
        rows = _scaler_rows(out)
        assert set(rows) == {"eager", "forward compiled", "whole step compiled"}, out
        assert rows["eager"][2] == "0 graph(s), 0 break(s), 0 recompile(s)"
        assert rows["forward compiled"][2] == "1 graph(s), 0 break(s), 0 recompile(s)"
        assert rows["whole step compiled"][2] == "2 graph(s), 6 break(s), 0 recompile(s)"
    rows = _scaler_rows(_afternoon("gradscaler-compiled"))
    for scales, losses, _ in rows.values():
        assert scales == ["2**24", "2**23", "2**22", "2**21", "2**21", "2**21"]
        assert len(set(losses[:4])) == 1 and losses[4] != losses[3]  # three steps skipped, the fourth taken
    differ = [(how, i) for how in rows for i, v in enumerate(rows[how][1]) if v != rows["eager"][1][i]]
    assert differ == [("forward compiled", 4)] and (rows["forward compiled"][1][4], rows["eager"][1][4]) == (
        "1.00213", "1.00214"), differ
    _said("gradscaler-read", "On the H200 (the afternoon run of 2026-11-27, another batch) all three skipped the first "
                             "three steps, from 2**24 to 2**21, then stepped, with the same losses to every printed "
                             "digit but one (1.00213 against eager's 1.00214 at the fifth step, with the forward "
                             "compiled), and the same graphs and breaks as on the CPU")
    defaults = inspect.signature(torch.amp.GradScaler).parameters
    assert (defaults["backoff_factor"].default, defaults["growth_factor"].default,
            defaults["growth_interval"].default) == (0.5, 2.0, 2000)
    _said("fp16-underflow-read", "`scaler.update()` then halves S (and doubles it after 2000 steps without one)")


def test_dynamo_breaks_at_the_scaler_and_at_backward_when_the_whole_step_is_compiled(fresh_dynamo):
    from torch._dynamo import trace_rules
    from torch.amp.grad_scaler import GradScaler

    ns = _run_cell("fp16-underflow")
    _run_cell("gradscaler-compiled", ns, until="runs = {how: train_fp16(how)")
    losses, scales, events = ns["train_fp16"]("whole step compiled")
    eager_losses, _, _ = ns["train_fp16"]("eager")
    assert [f"{v:.5f}" for v in losses] == [f"{v:.5f}" for v in eager_losses]  # it still runs, and trains the same
    reasons = " | ".join(b.reason for b in events.graph_breaks)
    for name in ("GradScaler.scale", "GradScaler.step", "GradScaler.update", "Tensor.backward()"):
        assert name in reasons, reasons
    assert (events.graphs, len(events.graph_breaks)) == (2, 6), events.summary()
    cpu_breaks = [f"  break: {b.reason[:110]}" for b in events.graph_breaks]  # as the cell prints them
    for out in _gpu_outputs("gradscaler-compiled"):  # the same breaks, in the same order, on the GPU
        assert [line for line in out.splitlines() if line.startswith("  break: ")] == cpu_breaks, out
    assert "torch.amp" in trace_rules.MOD_SKIPLIST
    assert 'v.item() for v in optimizer_state["found_inf_per_device"].values()' in inspect.getsource(
        GradScaler._maybe_opt_step)
    _said("fp16-underflow-read", "`GradScaler._maybe_opt_step` reads it with `.item()`",
          "`torch.amp` is on its skip list (`MOD_SKIPLIST` in `torch/_dynamo/trace_rules.py`",
          "it does not trace `loss.backward()` either")
    _said("gradscaler-read", "Dynamo breaks the graph at each of the scaler's methods, at `backward()`",
          "keep `scaler.scale(loss).backward()`, `scaler.step(opt)` and `scaler.update()` outside")


def test_the_summary_says_what_the_new_cells_show():
    _said("cell-23", "Compiled bf16 rounds once per fused kernel, eager bf16 after every op",
          "fp16 needs `GradScaler`, kept outside the compiled region")
