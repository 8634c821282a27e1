"""exercises/ is generated from solutions/ by nbgrader and never edited by hand."""

import filecmp

import pytest
from conftest import REPO, run_make

from autograder.tools.release import assignments, run_nbgrader


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("release")
    result = run_make("exercises", f"RELEASE_DIR={out}")
    assert result.returncode == 0, f"`make exercises` failed:\n{result.stdout}\n{result.stderr}"
    return out


def _files(root):
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts
                  and ".ipynb.mine-" not in p.name)  # a learner's answers, kept by `make exercises`


@pytest.mark.gate
def test_every_solution_has_a_student_version(regenerated):
    assert assignments(), "solutions/ holds no assignment"
    assert _files(regenerated) == _files(REPO / "exercises"), (
        "exercises/ and solutions/ hold different files: run `make exercises` and commit the result"
    )


@pytest.mark.gate
def test_exercises_are_exactly_what_nbgrader_generates(regenerated):
    for rel in _files(regenerated):
        assert filecmp.cmp(regenerated / rel, REPO / "exercises" / rel, shallow=False), (
            f"exercises/{rel} differs from what solutions/ generates: run `make exercises` (a notebook holding "
            "your answers is kept beside it as .mine-N) and commit the result (never edit exercises/ by hand)"
        )


@pytest.mark.gate
def test_student_versions_contain_no_solution_or_hidden_test(regenerated):
    for nb in regenerated.rglob("*.ipynb"):
        text = nb.read_text()
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS"):
            assert marker not in text, f"{nb.name} still contains {marker}"


@pytest.mark.slow
def test_solution_passes_and_untouched_exercise_fails_nbgrader_validate():
    # The real CLI, as an instructor runs it, on the warm-up (plain asserts). A graded exercise's cells (they call
    # the grader) under nbgrader's own execution are proven in test_classroom: the reference's graded cells all
    # pass there (no disagreement with the trusted grading for alice and peggy) and the stub's score 0 (bob).
    # Every solution passing and stub failing is proven once, more cheaply: solutions run under papermill
    # (test_notebooks: a failed check fails the run), stubs are graded check by check (test_exercises), the
    # untouched 01 runs to its card with every check failed (test_notebooks). `nbgrader validate` exits 0 even
    # when validation fails (FACTS.md), so its verdict is read from what it prints.
    name = "00_warmup"
    solution = run_nbgrader(REPO, "validate", str(REPO / "solutions" / name / f"{name}.ipynb")).stdout
    assert "Success! Your notebook passes all the tests." in solution, solution
    stub = run_nbgrader(REPO, "validate", "--invert", str(REPO / "exercises" / name / f"{name}.ipynb")).stdout
    assert "Success! The notebook does not pass any tests." in stub, (
        f"the untouched exercise {name} passes a graded cell (or was edited by hand: run `make exercises`):\n{stub}")


def test_regenerating_exercises_keeps_a_learners_answers_and_says_where(tmp_path, capsys):
    """`make exercises` over a folder where a learner has worked: each notebook whose answer cells hold anything
    but the stubs is kept beside the fresh one as NAME.ipynb.mine-1, and the command says so; an untouched or
    merely stale notebook is replaced without a copy (issue 40: the suite told learners to run it, and it
    overwrote their answers)."""
    import json
    import shutil

    from autograder.tools import release

    out = tmp_path / "exercises"
    shutil.copytree(REPO / "exercises", out)
    worked = out / "01_eager_mode" / "01_eager_mode.ipynb"
    nb = json.loads(worked.read_text())
    answer = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))
    answer["source"] = ["def fast_gelu_bias(x, bias):\n", "    return my_own_work(x, bias)\n"]
    worked.write_text(json.dumps(nb))
    stale = out / "03_compile_modes" / "03_compile_modes.ipynb"
    nb = json.loads(stale.read_text())
    nb["cells"][0]["source"] = ["an older lesson text\n"]
    stale.write_text(json.dumps(nb))
    assert release.main([str(out)]) == 0
    kept = worked.with_name("01_eager_mode.ipynb.mine-1")
    assert "my_own_work" in kept.read_text() and "my_own_work" not in worked.read_text()
    assert filecmp.cmp(worked, REPO / "exercises" / "01_eager_mode" / "01_eager_mode.ipynb", shallow=False)
    assert filecmp.cmp(stale, REPO / "exercises" / "03_compile_modes" / "03_compile_modes.ipynb", shallow=False)
    assert sorted(p.name for p in out.rglob("*.mine-*")) == ["01_eager_mode.ipynb.mine-1"]
    assert "KEPT YOUR WORK: 01_eager_mode/01_eager_mode.ipynb" in capsys.readouterr().out
