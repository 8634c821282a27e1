"""The nbgrader classroom path end to end, with nbgrader's real CLI and SQLite gradebook (no mocks).

A class of fake students submits exercise 01 (the reference, an untouched and a half-done notebook, an
unreadable file, sys.exit, a renamed entry point, a hang, deleted and edited test cells, and two cheats: a
patched comparison and a slowed clock); `autograde` grades them one after the other; every student's score per
check, the CSV export and the feedback files are checked. The speed check runs under the explicit
CPU permission (COURSE_ALLOW_SKIP=1, COURSE.md) so the test is meaningful without a GPU.
"""

import csv
import json
import shutil
from pathlib import Path

import pytest

from autograder.tools import classroom

REPO = Path(__file__).resolve().parent.parent
EX = "01_eager_mode"
FULL = {"benchmark_known_durations": 3, "benchmark_excludes_compile": 2, "fast_gelu_bias_correct": 3,
        "fast_gelu_bias_speed": 4}


def _edit_entry(nb: dict, edit) -> str:
    """The notebook as JSON, with ``edit`` applied to the source of the fast_gelu_bias solution cell."""
    for c in nb["cells"]:
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "fast_gelu_bias":
            c["source"] = edit("".join(c["source"]))
    return json.dumps(nb)


def _notebook(kind: str, course: Path) -> str:
    solution = json.loads((course / "solutions" / EX / f"{EX}.ipynb").read_text())
    stub = json.loads((course / "exercises" / EX / f"{EX}.ipynb").read_text())
    if kind == "reference":
        return json.dumps(solution)
    if kind == "untouched":
        return json.dumps(stub)
    if kind == "unreadable":
        return '{"cells": [ this is not a notebook'
    if kind == "half_done":  # benchmark written, fast_gelu_bias still the stub
        cell = next(c for c in solution["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "benchmark")
        for i, c in enumerate(stub["cells"]):
            if c["metadata"].get("nbgrader", {}).get("grade_id") == "benchmark":
                stub["cells"][i] = cell
        return json.dumps(stub)
    if kind == "sys_exit":  # the reference with sys.exit(0) in a solution cell
        return _edit_entry(solution, lambda src: "import sys\nsys.exit(0)\n" + src)
    if kind == "renamed":  # the entry point renamed: its checks score 0, the rest still count
        return _edit_entry(solution, lambda src: src.replace("fast_gelu_bias =", "fast_gelu ="))
    if kind == "hangs":  # the reference with an endless loop in a solution cell
        return _edit_entry(solution, lambda src: "while True:\n    pass\n" + src)
    if kind == "deleted_tests":  # the stub with every graded test cell deleted
        stub["cells"] = [c for c in stub["cells"] if not c["metadata"].get("nbgrader", {}).get("grade")]
        return json.dumps(stub)
    if kind == "edited_tests":  # the stub with every graded test cell emptied
        for c in stub["cells"]:
            if c["metadata"].get("nbgrader", {}).get("grade"):
                c["source"] = "pass\n"
        return json.dumps(stub)
    if kind == "patched_allclose":  # a cheat: every comparison patched to agree, and zeros instead of the work
        return _edit_entry(solution, lambda src: src + "\ntorch.allclose = torch.equal = lambda *a, **k: True\n"
                                                 "fast_gelu_bias = lambda x, bias: torch.zeros_like(x)\n")
    raise ValueError(kind)


CLASS = {"alice": ("reference", FULL),
         "bob": ("untouched", dict.fromkeys(FULL, 0)),
         "carol": ("unreadable", dict.fromkeys(FULL, 0)),
         "dave": ("half_done", {**dict.fromkeys(FULL, 0), "benchmark_known_durations": 3,
                                "benchmark_excludes_compile": 2}),
         "erin": ("sys_exit", dict.fromkeys(FULL, 0)),
         "frank": ("renamed", {**FULL, "fast_gelu_bias_correct": 0, "fast_gelu_bias_speed": 0}),
         "grace": ("hangs", dict.fromkeys(FULL, 0)),
         "heidi": ("deleted_tests", dict.fromkeys(FULL, 0)),
         "ivan": ("edited_tests", dict.fromkeys(FULL, 0)),
         # the comparisons that decide are in the judge's process: the patch changes nothing there
         "judy": ("patched_allclose", {**FULL, "fast_gelu_bias_correct": 0})}


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    shutil.copy(REPO / "nbgrader_config.py", course)
    shutil.copytree(REPO / "solutions" / EX, course / "solutions" / EX)
    mp = pytest.MonkeyPatch()
    mp.setenv("COURSE_ALLOW_SKIP", "1")
    mp.setenv("COURSE_GRADING_SECRET", "instructor-secret-for-the-test")
    # Short limits so the hanging submission costs a minute: a notebook cell, and one isolated grading.
    mp.setenv("COURSE_CELL_TIMEOUT", "60")
    mp.setenv("COURSE_SUBMISSION_TIMEOUT", "30")
    try:
        classroom.release(course)
        for student, (kind, _) in CLASS.items():
            folder = course / "submitted" / student / EX
            folder.mkdir(parents=True)
            (folder / f"{EX}.ipynb").write_text(_notebook(kind, course))
        classroom.autograde(course)
        classroom.feedback(course)
        classroom.grades(course)
    finally:
        mp.undo()
    return course


def test_every_student_gets_the_score_each_check_deserves(graded_class):
    rows = list(csv.DictReader((graded_class / "grades.csv").open()))
    scores = {(r["student"], r["check"]): float(r["score"]) for r in rows}
    assert {r["student"] for r in rows} == set(CLASS)
    for student, (kind, expected) in CLASS.items():
        got = {check: scores[(student, check)] for check in FULL}
        assert got == expected, f"{student} ({kind})"


def test_max_points_in_the_gradebook_are_the_exercise_specs_points(graded_class):
    from autograder.exercises import get_exercise

    rows = list(csv.DictReader((graded_class / "grades.csv").open()))
    spec = {c.id: c.points for c in get_exercise(EX).checks}
    assert {r["check"]: float(r["max_score"]) for r in rows} == spec


def test_a_hang_and_a_renamed_entry_point_are_explained_in_the_feedback(graded_class):
    hang = (graded_class / "feedback" / "grace" / EX / f"{EX}.html").read_text()
    assert "timed out" in hang or "time limit" in hang
    renamed = (graded_class / "feedback" / "frank" / EX / f"{EX}.html").read_text()
    assert "no function named fast_gelu_bias" in renamed


def test_deleted_test_cells_are_put_back_and_graded_and_a_cheat_is_named(graded_class):
    deleted = (graded_class / "feedback" / "heidi" / EX / f"{EX}.html").read_text()
    for check in FULL:
        assert f"(id:{check}) was missing from the submission" in deleted, check
    assert "not written yet" in deleted  # the restored tests ran against the stub
    edited = (graded_class / "autograded" / "ivan" / EX / f"{EX}.ipynb").read_text()
    assert '"pass\\n"' not in edited and "grade_cell(EX" in edited  # nbgrader restored the locked cells
    cheat = (graded_class / "feedback" / "judy" / EX / f"{EX}.html").read_text()
    assert "differs from the reference" in cheat


def test_each_student_has_feedback_and_an_unreadable_file_is_kept_and_explained(graded_class):
    for student in CLASS:
        assert (graded_class / "feedback" / student / EX / f"{EX}.html").exists(), student
    kept = graded_class / "submitted" / "carol" / EX / f"{EX}.ipynb.unreadable"
    assert kept.read_text().startswith('{"cells": [ this is not')
    assert "could not be graded" in (graded_class / "feedback" / "carol" / EX / f"{EX}.html").read_text()


def test_autograde_records_each_submissions_time(graded_class):
    rows = list(csv.DictReader((graded_class / "autograded" / "timings.csv").open()))
    assert {r["student"] for r in rows} == set(CLASS)
    assert all(r["assignment"] == EX and float(r["seconds"]) > 0 for r in rows)
    # the hanging student's grading is stopped by the 30 s submission limit, then the notebook goes on
    assert 30 <= float(next(r["seconds"] for r in rows if r["student"] == "grace")) < 200


def test_the_autograded_notebook_says_how_long_its_isolated_grading_took(graded_class):
    text = (graded_class / "autograded" / "alice" / EX / f"{EX}.ipynb").read_text()
    assert "graded in separate processes in" in text
