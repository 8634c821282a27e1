"""Lesson 4, section 7 (torch.export): its cell run here, on a CPU, and checked against what the prose around it says
(export raises where torch.compile breaks; torch.cond exports and gives eager's values on both sides; an exported
program refuses a batch outside its range and lets a batch below a min of 2 run), and the torch source the prose
cites checked in the installed torch."""

import functools
import inspect
import json
import re
import warnings

import torch
from lesson_gpu_outputs import TORCH_DIR, prose, run_cell, says

from autograder.tools.paths import REPO

L4 = "04_graph_breaks"
MD, RUN, READ = "export-md-7c1a", "export-run-3e9b", "export-read-5d2f"


def _run() -> str:
    from autograder.course import breaks
    from autograder.course.context import course_context

    namespace = {"torch": torch, "inspect": inspect, "warnings": warnings, "breaks": breaks,
                 "ctx": course_context("cpu", "smoke")}
    try:
        return run_cell(L4, RUN, namespace)
    finally:
        torch._dynamo.reset()


@functools.cache
def _printed() -> str:
    return _run()


def _line(start: str) -> str:
    found = [line for line in _printed().splitlines() if line.strip().startswith(start)]
    assert len(found) == 1, (start, _printed())
    return found[0].strip()


def test_export_raises_where_torch_compile_breaks_in_both_modes():
    assert _line("torch.compile, PythonIf:") == ("torch.compile, PythonIf: 2 graphs, 1 break: generic_jump "
                                                 "TensorVariable()")
    assert inspect.signature(torch.export.export).parameters["strict"].default is False  # "(the default)" below
    assert _line("torch.export, PythonIf, strict=False").startswith(
        "torch.export, PythonIf, strict=False (the default): raised GuardOnDataDependentSymNode: Could not guard on "
        "data-dependent expression"), _printed()
    assert _line("torch.export, PythonIf, strict=True").startswith(
        "torch.export, PythonIf, strict=True: raised Unsupported: Data-dependent branching"), _printed()
    assert ": exported" not in _printed().split("torch.export, CondIf")[0]  # neither mode exported PythonIf
    says(L4, MD, "where `torch.compile` breaks, export raises", "`strict=True` traces with Dynamo and, like "
         "`fullgraph=True` (section 4), raises at the first break", "the trace raises `GuardOnDataDependentSymNode`, "
         '"Could not guard on data-dependent expression"')
    says(L4, READ, "`torch.compile` split `PythonIf` in two at the `if`", "export raised there instead, in both modes")


def test_the_branch_written_with_torch_cond_exports_as_one_cond_node_and_gives_eagers_values_on_both_sides():
    line = _line("torch.export, CondIf:")
    assert line.endswith("torch.ops.higher_order.cond among them: True"), line
    names = re.search(r"\d+ nodes: (.*);", line)[1].split(", ")
    assert {"cond", "true_graph_0", "false_graph_0"} <= set(names), names
    assert _line("sum(sin(x)) > 0 is True (true side):").endswith("gives eager PythonIf's values: True"), _printed()
    assert _line("sum(sin(x)) > 0 is False (false side):").endswith("gives eager PythonIf's values: True"), _printed()
    says(L4, READ, "the branch is one operator in the graph, `torch.ops.higher_order.cond`", "stored as the subgraphs "
         "`true_graph_0` and `false_graph_0`", "on inputs that take each side it gave eager `PythonIf`'s values")


def test_an_exported_program_holds_range_constraints_refuses_a_batch_outside_them_and_runs_a_batch_below_a_min_of_2():
    ranges = _line("range_constraints:")
    assert ranges.startswith("range_constraints: exported as above {}; with Dim('batch', min=2, max=1024) {"), ranges
    assert ranges.endswith(": VR[2, 1024]}"), ranges
    fixed = _line("exported as above, called with a batch of 16:")
    assert "raised" in fixed and "8" in fixed, fixed
    above = _line("exported with Dim, called with a batch of 2048:")
    assert "raised" in above and "1024" in above, above
    assert _line("exported with Dim, called with a batch of 1:").endswith(": ran"), _printed()
    # the source the prose cites for the loose lower bound
    from torch._export import utils as export_utils
    from torch.export import _unlift

    assert "if min_val > 2:" in inspect.getsource(_unlift._get_input_guards_for_graph)
    check = inspect.getsource(export_utils._check_symint)
    assert "# NOTE: we allow dimensions to be 0/1 at runtime" in check and "if min_val > 2:" in check
    says(L4, READ, "What it holds instead of guards is `range_constraints`", "a batch of 16 for a graph exported "
         "with 8 raised", "a batch of 2048 raised", "a batch of 1 ran", "`_get_input_guards_for_graph` in "
         "`torch/export/_unlift.py`", '"we allow dimensions to be 0/1 at runtime"',
         "A `min` of 2 or less is not enforced when the program runs")


def test_the_cell_prints_nothing_but_its_lines_a_failed_exports_partial_graph_and_warnings_kept_out(capfd):
    """Unquieted, the failed export of PythonIf writes its partial graph to stderr and symbolic_shapes logs "Unable to
    find user code corresponding to {u0}" (a warning, through torch's own handler)."""
    import logging

    records = []
    handler = logging.Handler()
    handler.emit = records.append
    shapes_log = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    shapes_log.addHandler(handler)
    capfd.readouterr()
    try:
        text = _run()
    finally:
        shapes_log.removeHandler(handler)
    printed = capfd.readouterr()
    assert printed.err == "" and printed.out == "" and records == [], (printed, records)
    assert len(text.splitlines()) == 10 and "def forward" not in text, text
    source = (TORCH_DIR / "export" / "_trace.py").read_text()  # what the cell quiets: the partial graph, on stderr
    wrapper = source[source.index("def _log_export_wrapper"):]
    assert "e.partial_fx_graph," in wrapper[:wrapper.index("\ndef ")] and "file=sys.stderr" in wrapper


def test_the_torch_functions_the_prose_names_are_in_the_installed_torch():
    trace = (TORCH_DIR / "export" / "_trace.py").read_text()
    assert "def _strict_export(" in trace and "def _non_strict_export(" in trace
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode, ShapeEnv

    assert issubclass(GuardOnDataDependentSymNode, RuntimeError)
    assert "Could not guard on data-dependent expression" in inspect.getsource(ShapeEnv._make_data_dependent_error)
    inductor = (TORCH_DIR / "_inductor" / "__init__.py").read_text()
    assert "def aoti_compile_and_package(" in inductor and "def aoti_load_package(" in inductor
    assert callable(torch._inductor.aoti_compile_and_package) and callable(torch._inductor.aoti_load_package)
    from torch._inductor.package import package

    assert "torch._C._aoti.AOTIModelPackageLoader(" in inspect.getsource(package.load_package)
    header = TORCH_DIR / "include" / "torch" / "csrc" / "inductor" / "aoti_package" / "model_package_loader.h"
    assert "class TORCH_API AOTIModelPackageLoader" in header.read_text()
    says(L4, READ, "`torch._inductor.aoti_compile_and_package(ep, package_path=\"model.pt2\")`",
         "`torch._inductor.aoti_load_package(\"model.pt2\")`", "both in `torch/_inductor/__init__.py`",
         "`load_package` in `torch/_inductor/package/package.py` creates a `torch._C._aoti.AOTIModelPackageLoader`",
         "`torch/csrc/inductor/aoti_package/model_package_loader.h`")


def test_the_section_sits_before_the_quiz_and_the_summary_names_export():
    ids = [c.get("id") for c in json.loads((REPO / "lessons" / f"{L4}.ipynb").read_text())["cells"]]
    at = ids.index(MD)
    assert ids[at - 1:at + 4] == ["keep-calls-read-9f4d", MD, RUN, READ, "cell-32"], ids
    assert prose(L4, READ).endswith("## Check your understanding")
    assert "Check your understanding" not in prose(L4, "keep-calls-read-9f4d")
    says(L4, "cell-33", "`torch.export` makes one graph or raises", "An `ExportedProgram` holds `range_constraints` "
         "instead of guards", "(a `min` of 2 or less is not checked)", "AOTInductor (`aoti_compile_and_package`, "
         "`aoti_load_package`)")
