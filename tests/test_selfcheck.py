"""The graded cells: in-process for learners, isolated on the submitted file under nbgrader autograde."""

import shutil

import pytest
import torch
from conftest import REPO

from autograder import selfcheck
from autograder.core.correctness import CheckFailed
from autograder.core.submission import load_namespace, submission_code

EX = "01_eager_mode"


def test_autograde_mode_grades_the_submitted_notebook_in_a_subprocess(tmp_path, monkeypatch):
    shutil.copy(REPO / "exercises" / EX / f"{EX}.ipynb", tmp_path / f"{EX}.ipynb")  # an untouched submission
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    live = {"benchmark": lambda fn, *a: 0.002}  # whatever the kernel holds does not count under autograde
    with pytest.raises(CheckFailed, match="not written yet"):
        selfcheck.grade_cell(EX, "benchmark_known_durations", live)


def test_live_mode_regrades_when_the_learner_redefines_a_function(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    namespace = load_namespace(*submission_code(REPO / "solutions" / EX / f"{EX}.ipynb"))
    selfcheck.grade_cell(EX, "fast_gelu_bias_correct", namespace)
    namespace["fast_gelu_bias"] = lambda x, bias: x  # redefined: wrong now
    with pytest.raises(CheckFailed, match="differs"):
        selfcheck.grade_cell(EX, "fast_gelu_bias_correct", namespace)


def test_a_gpu_speed_check_on_a_cpu_is_not_graded_here_for_a_learner_and_fails_where_it_must(monkeypatch, capsys):
    """Issue 40: a CPU learner's correct exercise showed a red FAILED speed check. In a learner's notebook on a
    machine without a GPU it now says "not graded here" and the cell goes on; COURSE_ALLOW_SKIP=0 (a CI that must
    have a GPU) and nbgrader (a skipped check is 0 points) still fail it."""
    if torch.cuda.is_available():
        pytest.skip("on a GPU the speed check runs")
    namespace = load_namespace(*submission_code(REPO / "solutions" / EX / f"{EX}.ipynb"))
    monkeypatch.delenv("COURSE_ALLOW_SKIP", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    selfcheck._cache.clear()
    selfcheck.grade_cell(EX, "fast_gelu_bias_speed", namespace)
    assert "[SKIP] fast_gelu_bias_speed (0/4): needs a CUDA GPU — not graded here" in capsys.readouterr().out
    monkeypatch.setenv("COURSE_ALLOW_SKIP", "0")
    selfcheck._cache.clear()
    with pytest.raises(CheckFailed, match="needs a CUDA GPU"):
        selfcheck.grade_cell(EX, "fast_gelu_bias_speed", namespace)
    monkeypatch.setenv("COURSE_ALLOW_SKIP", "1")
    selfcheck._cache.clear()
    selfcheck.grade_cell(EX, "fast_gelu_bias_speed", namespace)  # skipped, as CI permits
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert not selfcheck.learner_skips()  # under nbgrader a skip is 0 points and fails (test_classroom)


def test_a_notebooks_hidden_cells_share_one_live_grading_per_set_of_definitions(monkeypatch):
    """Self-study and papermill: the first hidden cell grades every hidden check whose functions exist by then
    (one judge), the next hidden cell reads that report; a redefined function, or a check whose function was
    missing then, is graded again."""
    from autograder.core.protocol import PASSED, CheckResult, Report

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    asked = []

    def fake_live(request, namespace, progress=None):
        asked.append(tuple(request.only))
        assert request.hidden_stream
        results = [CheckResult(c, c, "correctness", 1.0, 1, PASSED, "ok", "") for c in request.only]
        return Report("02_compile_pipeline", results, {}, 0.0, False)

    monkeypatch.setattr(selfcheck, "grade_live", fake_live)
    monkeypatch.setattr(selfcheck, "_cache", {})
    namespace = {"NanHunter": object()}  # make_train_step is written further down the notebook
    selfcheck.hidden_check("02_compile_pipeline", "hunter_node", namespace)
    namespace["make_train_step"] = object()
    selfcheck.hidden_check("02_compile_pipeline", "train_step_correct", namespace)  # was not ready: graded now
    selfcheck.hidden_check("02_compile_pipeline", "hunter_node", namespace)  # nothing redefined: no judge
    assert asked == [("hunter_node",), ("hunter_node", "train_step_correct")]
    namespace["NanHunter"] = object()
    selfcheck.hidden_check("02_compile_pipeline", "train_step_correct", namespace)
    assert len(asked) == 3


def test_a_notebook_with_odd_json_where_nbgrader_keeps_its_metadata_is_read_not_crashed_on(tmp_path):
    """A red team's code cell whose nbgrader metadata was a string crashed the grader before any judge (the whole
    class recorded nothing). Whatever JSON a student's file holds there, its code cells are read; a cell nested past
    the parser's depth is a load error of that cell, and the grading's limit is the default."""
    import json

    from autograder.core.submission import LOAD_ERRORS, grading_limit

    deep = "x = " + "-" * 100_000 + "1"
    cells = [{"cell_type": "code", "metadata": {"nbgrader": "oops"}, "source": "a = 1", "outputs": []},
             {"cell_type": "code", "metadata": "not a dict", "source": ["b = ", 2], "outputs": []},
             {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "solution": False}}, "source": "check()"},
             {"cell_type": "code", "metadata": {}, "source": deep}]
    path = tmp_path / "odd.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    sources = submission_code(path)
    assert sources[:2] == ["a = 1\n", "b = 2\n"] and len(sources) == 3  # the graded test cell is left out
    assert selfcheck.submission_timeout(path) == grading_limit([]) == 600.0
    namespace = load_namespace(*sources)
    assert namespace["a"] == 1 and namespace["b"] == 2
    assert len(namespace[LOAD_ERRORS]) == 1 and "code cell 3 cannot be compiled" in namespace[LOAD_ERRORS][0]
