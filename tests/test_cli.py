"""`python -m autograder`: input it cannot grade is refused at once — one line on stderr, exit code 2, nothing
graded — and `--help` documents the exit codes. (Grading itself: tests/test_exercises.py.)"""

import subprocess
import sys
import time

import pytest
from conftest import REPO

SOLUTION = REPO / "solutions/01_eager_mode/01_eager_mode.ipynb"
# What proves that nothing was graded is PROBE's marker (the grader, and torch, never imported); the time bound only
# catches a hang. It is loose because a loaded 2-core CI machine took 16 s to start Python and read a notebook.
FAST_S = 60
# Runs main() as `python -m autograder` does, then says whether the grader (and with it torch) was imported.
PROBE = ("import sys; from autograder.__main__ import main; code = main(sys.argv[1:]); "
         "print('grader imported' if 'autograder.core.grading' in sys.modules else 'grader not imported'); "
         "sys.exit(code)")


def _run(*args: str, module: bool = False) -> tuple[subprocess.CompletedProcess, float]:
    cmd = [sys.executable, "-m", "autograder", *args] if module else [sys.executable, "-c", PROBE, *args]
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    return result, time.perf_counter() - start


def _unusable(tmp_path, kind: str):
    """A file (or folder) that cannot be graded, and words the one-line message must contain."""
    if kind == "missing":
        return tmp_path / "01_eager_mode.ipynb", "does not exist"
    if kind == "wrong suffix":
        (tmp_path / "answer.txt").write_text("def benchmark(fn, *args): ...\n")
        return tmp_path / "answer.txt", "expected a .ipynb notebook or a .py file"
    if kind == "folder":
        return tmp_path, "is a folder"
    if kind == "truncated notebook":
        path = tmp_path / "01_eager_mode.ipynb"
        path.write_text(SOLUTION.read_text()[:4000])
        return path, "is not a readable Jupyter notebook"
    if kind == "json, not a notebook":
        path = tmp_path / "01_eager_mode.ipynb"
        path.write_text('{"cells": 3}')
        return path, "is not a readable Jupyter notebook"
    if kind == "undecodable .py":
        path = tmp_path / "answer.py"
        path.write_bytes(b"\xff\xfe def benchmark")
        return path, "cannot be read as Python source"
    raise ValueError(kind)


KINDS = ["missing", "wrong suffix", "folder", "truncated notebook", "json, not a notebook", "undecodable .py"]


@pytest.mark.parametrize("kind", KINDS)
def test_unusable_input_is_refused_in_one_line_with_exit_2_before_any_grading(tmp_path, kind):
    path, words = _unusable(tmp_path, kind)
    result, seconds = _run("grade", "01_eager_mode", str(path))
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and words in lines[0] and str(path) in lines[0], result.stderr
    assert result.stdout.strip() == "grader not imported", "the grader (and torch) must not even be imported"
    assert seconds < FAST_S, f"{seconds:.1f} s to refuse {kind}"


def test_a_broken_notebook_is_told_where_the_released_exercise_is(tmp_path):
    path, _ = _unusable(tmp_path, "truncated notebook")
    result, _ = _run("grade", "01_eager_mode", str(path), module=True)
    assert result.returncode == 2 and result.stdout == ""
    assert "the exercise as released is exercises/01_eager_mode/01_eager_mode.ipynb" in result.stderr


def test_a_missing_json_folder_is_refused_before_grading(tmp_path):
    result, seconds = _run("grade", "01_eager_mode", str(SOLUTION), "--json", str(tmp_path / "no" / "r.json"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert "does not exist" in result.stderr and result.stdout.strip() == "grader not imported"
    assert seconds < FAST_S


def test_an_unknown_exercise_is_refused_with_the_known_ids(capsys):
    from autograder.__main__ import main
    from autograder.exercises import EXERCISES

    assert main(["grade", "01_eager", str(SOLUTION)]) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert out == "" and "unknown exercise '01_eager'" in line and all(ex in line for ex in EXERCISES)


def test_the_warm_up_is_refused_with_the_reason(capsys):
    from autograder.__main__ import main

    assert main(["grade", "00_warmup", str(REPO / "solutions/00_warmup/00_warmup.ipynb")]) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert out == "" and "00_warmup is not graded by this command" in line and "test cells in its notebook" in line


def test_help_documents_the_exit_codes():
    for args in (["--help"], ["grade", "--help"]):
        result, seconds = _run(*args, module=True)
        assert result.returncode == 0 and seconds < FAST_S
        codes = result.stdout.split("exit codes:")[1]
        for code, words in [("0", "every check passed"), ("1", "failed"), ("2", "nothing was graded")]:
            assert f"  {code}  " in codes and words in codes, (code, result.stdout)
        assert "00_warmup" in result.stdout
