"""Lesson 3, section 8's mixed-precision depth (issue 39 item 3): compiled bf16 against eager bf16 and
``emulate_precision_casts``; bf16 autocast in a compiled training step; fp16 underflow and ``GradScaler`` under
torch.compile. Each claim is checked on the CPU by running the lesson's own cell code (or torch's source, where the
claim is about torch), and each test also checks that the prose still says what it checks."""

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
from conftest import REPO
from lesson_gpu_outputs import output, prose

from autograder.core.compile_events import capture_compile_events
from autograder.course import precision
from autograder.course.context import course_context

L3 = "03_compile_modes"


def _said(cell: str, *phrases: str) -> None:
    """Each phrase is in that cell's source (line breaks folded)."""
    text = " ".join(prose(L3, cell).split())
    for phrase in phrases:
        assert phrase in text, f"lessons/{L3}.ipynb cell {cell} no longer says {phrase!r}"


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
    _said("bf16-chain-read", "(more than twice the compiled error here, and 9x its largest error)",
          "returned *exactly* the fp32 chain rounded once (0 elements differ)",
          "returned eager's bits (0 elements differ from eager bf16)", "Those zeros are from a CPU with torch 2.13",
          "the course has not yet run this cell on a GPU")
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


def test_the_recorded_gpu_runs_put_compiled_bf16_nearer_fp64_than_eager_bf16():
    """The prose quotes the precision table's bf16 rows: the recorded run and the earlier run in notebook-runs.md."""
    rows = re.findall(r"bf16 autocast\s+(eager|compiled):.*?relative error ([\d.e+-]+)", output(L3, "d438ef8c"))
    recorded = {how: float(err) for how, err in rows}
    runs = [recorded]
    for line in (REPO / "benchmarks" / "notebook-runs.md").read_text().splitlines():
        m = re.search(r"bf16 autocast eager [\d.]+ us \(([\d.e-]+), [\d.]+x\), compiled [\d.]+ us \(([\d.e-]+),", line)
        if line.startswith(f"| lessons/{L3}.ipynb") and m:
            runs.append({"eager": float(m[1]), "compiled": float(m[2])})
    assert len(runs) >= 2, runs
    for run in runs:
        assert run["compiled"] < run["eager"], run
        assert (f"{run['compiled']:.1e}", f"{run['eager']:.1e}") == ("2.0e-03", "2.3e-03"), run
    _said("bf16-vs-eager", "in both recorded GPU runs compiled bf16 autocast landed *closer* to float64 than eager "
                           "bf16 (relative error 2.0e-3 against 2.3e-3)")


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
    assert results["autocast inside"][1:] == ("1.8e-04", "4.8e-03")
    assert (ns["LOSS_RTOL"], ns["GRAD_RTOL"]) == (1e-3, 1e-2)
    _said("amp-training-read", "Both placements run, compile one graph each",
          "do not recompile over the steps", "They agree with each other to every printed digit",
          "(on the CPU: the losses 1.8e-4 apart, the gradients 4.8e-3, about bf16's resolution)")


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
    assert f"{err_scaled:.0e}" == "5e-04" and 8 <= err_bf16 / err_scaled < 10, (err_scaled, err_bf16)
    assert ns["SCALE"] == inspect.signature(torch.amp.GradScaler).parameters["init_scale"].default == 2.0**16
    _said("fp16-underflow-read", "Unscaled, the gradient reaching the model's fp16 output (at most 1.6e-8, in fp32) "
                                 "was below fp16's smallest nonzero number and rounded to zero",
          "Scaled by 2**16 (GradScaler's default initial scale) they survived, with an error of about 5e-4",
          "bf16 kept them unscaled, with about nine times that error")


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
