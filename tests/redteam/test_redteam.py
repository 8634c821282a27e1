"""Every known cheat or broken submission that can run on a CPU is rejected for the right reason.

The GPU-only cases (side stream, background GPU load, torch.empty reuse, memoisation caught by the bandwidth
ceiling, a legitimate reduce-overhead solution) run in `make gpu-check`.
"""

import tempfile
from pathlib import Path

import pytest

from autograder import redteam
from autograder.isolation import PACKAGE, grade_file

REPO = Path(__file__).resolve().parents[2]
CPU_CASES = redteam.cases(device="cpu")


def _case_id(case) -> str:
    return f"{case.exercise}/{case.name}"


def _solution(exercise: str) -> Path:
    return REPO / "solutions" / exercise / f"{exercise}.ipynb"


def test_every_exercise_with_a_spec_has_cpu_red_team_cases():
    assert {c.exercise for c in CPU_CASES} >= {"01_eager_mode", "02_compile_pipeline"}


@pytest.mark.parametrize("case", [c for c in CPU_CASES if c.outcome == "rejected"], ids=_case_id)
def test_cheat_is_rejected_for_the_right_reason(case):
    only = None if case.checks == ("*",) else list(case.checks)
    timeout = 10 if case.name == "infinite_loop" else 300
    try:
        # cpu_gate=1.0: on a CPU the timed-output checks run too (the 1.5x gate itself needs a GPU).
        report = grade_file(case.exercise, _solution(case.exercise), overrides=[case.path], cpu_gate=1.0,
                            only=only, timeout=timeout)
    finally:
        (PACKAGE / "zz_redteam_injected.py").unlink(missing_ok=True)
    ok, why = redteam.verdict(case, report)
    assert ok, f"{case.name}: {why}\n" + "\n".join(report.lines())
    assert not report.ok()


@pytest.mark.parametrize("case", [c for c in CPU_CASES if c.outcome == "passed"], ids=_case_id)
def test_a_legitimate_submission_passes(case):
    report = grade_file(case.exercise, _solution(case.exercise), overrides=[case.path], cpu_gate=1.0,
                        only=list(case.checks))
    ok, why = redteam.verdict(case, report)
    assert ok, f"{case.name}: {why}\n" + "\n".join(report.lines())


def test_the_secret_seed_is_not_visible_to_the_submission():
    case = next(c for c in CPU_CASES if c.outcome == "secret-hidden")
    found = Path(tempfile.gettempdir()) / redteam.SECRET_FILE_NAME
    found.unlink(missing_ok=True)
    grade_file(case.exercise, _solution(case.exercise), overrides=[case.path], secret="instructor-secret-42",
               only=["fast_gelu_bias_correct"])
    assert found.read_text() == "None"


def test_a_malformed_notebook_gets_a_clear_message(tmp_path):
    broken = tmp_path / "01_eager_mode.ipynb"
    broken.write_text('{"cells": [ this is not json')
    report = grade_file("01_eager_mode", broken)
    assert not report.ok() and report.points == 0
    assert all("not a readable Jupyter notebook" in r.message for r in report.results)


def test_a_missing_file_gets_a_clear_message(tmp_path):
    report = grade_file("01_eager_mode", tmp_path / "nope.ipynb")
    assert all("does not exist" in r.message for r in report.results)
