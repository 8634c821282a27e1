"""The graded cells: in-process for learners, isolated on the submitted file under nbgrader autograde."""

import shutil

import pytest
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


def test_a_gpu_speed_check_on_a_cpu_fails_unless_skipping_is_allowed(monkeypatch):
    namespace = load_namespace(*submission_code(REPO / "solutions" / EX / f"{EX}.ipynb"))
    monkeypatch.delenv("COURSE_ALLOW_SKIP", raising=False)
    selfcheck._cache.clear()
    with pytest.raises(CheckFailed, match="needs a CUDA GPU"):
        selfcheck.grade_cell(EX, "fast_gelu_bias_speed", namespace)
    monkeypatch.setenv("COURSE_ALLOW_SKIP", "1")
    selfcheck._cache.clear()
    selfcheck.grade_cell(EX, "fast_gelu_bias_speed", namespace)  # skipped, as CI permits
