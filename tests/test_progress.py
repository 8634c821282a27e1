"""Progress like a course platform's: stored per user outside the repository, surviving restarts, and never
breaking a notebook when the file is missing or corrupt; hints revealed one at a time."""

import json
import os
from pathlib import Path

import pytest

from autograder import selfcheck
from autograder.course import display, progress
from autograder.exercises import get_exercise


@pytest.fixture
def store(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "progress.json"
    monkeypatch.setenv("COURSE_PROGRESS_FILE", str(path))
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("AUTOGRADER_WORKER", raising=False)
    return path


def test_default_location_is_per_user_and_outside_the_repository(monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_PROGRESS_FILE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert progress.path() == tmp_path / "torch-compile-course" / "progress.json"


def test_a_missing_file_reads_as_nothing_done(store):
    assert progress.load() == {"version": 1, "lessons": {}, "exercises": {}}
    assert all(lesson == "not yet" for _, lesson, _ in progress.rows())


def test_lessons_and_exercises_are_recorded_and_survive_a_restart(store):
    progress.lesson_done("04")
    progress.record_exercise("04_graph_breaks", 6, 10, None)
    progress.record_exercise("04_graph_breaks", 10, 10, 3.1)
    progress.record_exercise("04_graph_breaks", 10, 10, 2.7)  # a slower run does not lower the best
    again = json.loads(store.read_text())  # what a new kernel reads
    assert "04" in again["lessons"]
    entry = again["exercises"]["04_graph_breaks"]
    assert entry["passed"] and entry["best_speedup"] == 3.1 and entry["best_points"] == 10
    row = dict((r[0][:2], r) for r in progress.rows())["04"]
    assert row[1] == "done" and row[2] == "passed, best 3.10x"
    assert (f"1/7 lessons done, 1/{len(progress.EXERCISES)} exercises passed; exercise 04: passed, best 3.10x"
            in progress.panel_text("04"))


def test_a_corrupt_file_never_breaks_a_notebook_and_is_kept_aside(store):
    store.parent.mkdir(parents=True)
    store.write_text('{"lessons": [not json')
    assert progress.load()["lessons"] == {}
    assert store.with_name("progress.json.corrupt").read_text() == '{"lessons": [not json'
    progress.lesson_done("01")  # and recording works again
    assert "01" in progress.load()["lessons"]


def test_a_file_of_the_wrong_shape_reads_as_empty(store):
    store.parent.mkdir(parents=True)
    store.write_text("[1, 2, 3]")
    assert progress.load()["exercises"] == {}


def test_an_unwritable_location_is_reported_not_raised(store, monkeypatch, capsys):
    monkeypatch.setattr(progress, "_save", lambda data: False)
    progress.lesson_done("02")
    assert "could not be saved" in capsys.readouterr().out


def test_grading_runs_do_not_record_progress(store, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    progress.lesson_done("03")
    progress.record_exercise("03_compile_modes", 10, 10, 3.0)
    assert not store.exists()


def test_an_unknown_lesson_is_a_clear_error(store):
    with pytest.raises(ValueError, match="unknown lesson '9'"):
        progress.lesson_done("9")


def test_hints_come_one_at_a_time_and_then_say_there_are_no_more():
    hints = get_exercise("04_graph_breaks").hints["no_graph_breaks"]
    ladder = display.HintLadder("no_graph_breaks", hints)
    assert ladder.next() == f"Hint 1/{len(hints)} for no_graph_breaks: {hints[0]}"
    assert ladder.next().startswith(f"Hint 2/{len(hints)}")
    for _ in hints[2:]:
        ladder.next()
    assert ladder.next().startswith("No more hints")


def test_the_hint_button_reveals_one_hint_at_a_time_without_a_widget():
    """Nested <details>: the first "show a hint" holds hint 1 and, inside it, the button for hint 2. Plain HTML
    needs no kernel connection, so it renders after a kernel switch and in feedback pages."""
    from html.parser import HTMLParser

    class Tree(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depth, self.hints = 0, []  # (details depth, text) of each revealed hint

        def handle_starttag(self, tag, attrs):
            self.depth += tag == "details"

        def handle_endtag(self, tag):
            self.depth -= tag == "details"

        def handle_data(self, data):
            if data.startswith("Hint "):
                self.hints.append((self.depth, data))

    tree = Tree()
    tree.feed(display.HintLadder("speed", ["first <b>", "second"]).html())
    assert tree.hints == [(1, "Hint 1/2 for speed: first <b>"), (2, "Hint 2/2 for speed: second")]
    assert tree.depth == 0  # balanced; the hint's own markup was escaped, not rendered


def test_hint_function_reveals_successive_hints_and_rejects_unknown_checks(capsys):
    selfcheck._hints.clear()
    assert selfcheck.hint("03_compile_modes", "predict_speed").startswith("Hint 1/")
    assert selfcheck.hint("03_compile_modes", "predict_speed").startswith("Hint 2/")
    with pytest.raises(KeyError, match="has no check 'nope'"):
        selfcheck.hint("03_compile_modes", "nope")


def test_the_panel_lists_every_exercise_of_the_registry():
    from autograder.exercises import EXERCISES as REGISTRY

    assert sorted(progress.EXERCISES.values()) == sorted(REGISTRY)
    assert all(exercise_id.startswith(number) for number, exercise_id in progress.EXERCISES.items())


def test_an_exercise_verified_on_a_cpu_is_not_passed_but_said_so(tmp_path, monkeypatch):
    """Issue 40: a CPU learner's correct exercise stayed "0/6 exercises passed" with nothing else to show. Every
    point a CPU can grade earned, the speed check not graded: "verified on a CPU", still not passed."""
    monkeypatch.setenv("COURSE_PROGRESS_FILE", str(tmp_path / "progress.json"))
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("AUTOGRADER_WORKER", raising=False)
    entry = progress.record_exercise("01_eager_mode", 8, 12, None, not_graded=4)
    assert entry["cpu_verified"] and not entry["passed"]
    progress.record_exercise("02_compile_pipeline", 3, 14, None, not_graded=6)  # a correctness check failed
    text = progress.panel_text("01")
    assert "0/6 exercises passed (1 more verified on a CPU, speed not graded there)" in text, text
    assert "exercise 01: verified on a CPU; its speed check needs a GPU" in text, text


def test_a_plain_papermill_run_and_a_gradings_run_leave_the_learners_progress_alone(tmp_path):
    """Issue 40: `papermill lesson.ipynb out.ipynb` recorded the lesson as done in the user's own progress file, and
    a feedback page showed the grading sandbox's empty progress panel."""
    import subprocess
    import sys

    from conftest import REPO

    nb = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source":
                     "from autograder.course import progress\nprogress.lesson_done('01')\nprogress.panel('01')"}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "in.ipynb").write_text(json.dumps(nb))
    env = {**os.environ, "COURSE_PROGRESS_FILE": str(tmp_path / "progress.json"), "PYTHONPATH": str(REPO)}
    env.pop("NBGRADER_EXECUTION", None)
    papermill = Path(sys.executable).parent / "papermill"
    done = subprocess.run([str(papermill), "-k", "python3", str(tmp_path / "in.ipynb"), str(tmp_path / "out.ipynb")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "progress.json").exists()
    assert "Course progress:" in (tmp_path / "out.ipynb").read_text()  # shown, not recorded
    env["NBGRADER_EXECUTION"] = "autograde"
    shown = subprocess.run([sys.executable, "-c", "from autograder.course import progress; progress.panel('01')"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and shown.stdout == "", shown.stdout
