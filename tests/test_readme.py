"""Every command the README shows is run by a test or by CI, and names a real make target."""

import re

from conftest import REPO, run_make

CI = ".ci/run"  # CI runs the command itself: its text must be in .ci/run
# command -> the tests (node ids) and CI that run it, or run exactly what it runs
COVERED = {
    "make lab": ["tests/test_make_lab.py::test_make_lab_serves_the_lessons_folder"],
    "make test": [CI],
    "make help": ["tests/test_setup.py::test_make_help_lists_every_target_with_one_line"],
    "make lab CPU=1": ["tests/test_setup.py::test_cpu_1_installs_torch_from_the_cpu_index_and_checks_the_build",
                       "tests/test_setup.py::test_the_cpu_check_passes_a_cpu_build_and_stops_a_cuda_build"],
    "make test CPU=1": [CI, "tests/test_setup.py::test_cpu_1_installs_torch_from_the_cpu_index_and_checks_the_build"],
    "make lab ARGS=--no-browser": ["tests/test_make_lab.py::test_make_lab_serves_the_lessons_folder"],
    "make test-fast": ["tests/test_readme.py::test_the_test_tiers_run_what_the_readme_says"],
    'make test PYTEST_ARGS="-k classroom"': ["tests/test_readme.py::test_the_test_tiers_run_what_the_readme_says"],
    "make strip": ["tests/test_notebook_hygiene.py::test_make_strip_cleans_a_dirty_notebook"],
    "make exercises": ["tests/test_exercises_in_sync.py::test_exercises_are_exactly_what_nbgrader_generates"],
    "make check SIZE=smoke DEVICE=cpu": ["tests/test_notebooks.py::test_make_check_runs_the_named_notebooks"],
    "python -m autograder list": ["tests/test_exercises.py::test_cli_lists_each_exercise_and_its_entry_points"],
    "python -m autograder grade 01_eager_mode solutions/01_eager_mode/01_eager_mode.ipynb --allow-skip":
        ["tests/test_exercises.py::test_cli_grades_the_reference_solution"],
    # The classroom test calls the functions these targets run (python -m autograder.tools.classroom COMMAND).
    "make release": ["tests/test_classroom.py::test_max_points_in_the_gradebook_are_the_exercise_specs_points"],
    "make autograde": ["tests/test_classroom.py::test_every_student_gets_the_score_each_check_deserves"],
    "make feedback":
        ["tests/test_classroom.py::test_each_student_has_feedback_and_an_unreadable_file_is_kept_and_explained"],
    "make grades": ["tests/test_classroom.py::test_every_student_gets_the_score_each_check_deserves"],
    # Here only its refusal; on a GPU it is the check itself.
    "make gpu-check PY=python3": ["tests/test_setup.py::test_gpu_check_refuses_to_run_without_a_gpu"],
}


def readme_commands() -> list[str]:
    blocks = re.findall(r"```(?:bash|sh|shell|console)\n(.*?)```", (REPO / "README.md").read_text(), flags=re.S)
    return [line.strip().removeprefix("$ ") for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_shows_the_two_commands_first():
    assert readme_commands()[:2] == ["make lab", "make test"]


def test_every_readme_command_is_run_by_a_test_or_ci():
    missing = [cmd for cmd in readme_commands() if cmd not in COVERED]
    assert not missing, f"README commands that nothing runs: {missing} (add a test and list it in COVERED)"


def test_every_test_named_in_covered_exists_and_ci_runs_its_commands():
    ci = (REPO / CI).read_text()
    for cmd, runners in COVERED.items():
        for runner in runners:
            if runner == CI:
                assert cmd in ci, f"COVERED says {CI} runs `{cmd}`, but it does not"
                continue
            path, name = runner.split("::")
            source = (REPO / path).read_text()
            assert re.search(rf"^def {name}\(", source, flags=re.M), f"COVERED names {runner} for `{cmd}`: no such test"


def test_every_make_target_in_the_readme_exists():
    targets = set(re.findall(r"^([a-z-]+):", (REPO / "Makefile").read_text(), flags=re.M))
    for cmd in readme_commands():
        if cmd.startswith("make "):
            assert cmd.split()[1] in targets, f"README uses `{cmd}` but the Makefile has no such target"


def _test_runs(*make_args: str) -> list[str]:
    """The lint and pytest command lines `make ARGS` would run, in order (make -n: nothing is run)."""
    out = run_make("-n", *make_args).stdout
    return [line for line in out.splitlines() if " -m pytest" in line or "ruff check" in line]


def test_the_test_tiers_run_what_the_readme_says():
    """`make test` and `make test-fast`: the gates first (lint, then the gate tests), then the suite (test-fast
    without the slow tests); PYTEST_ARGS reaches the suite's pytest."""
    full, fast = _test_runs("test"), _test_runs("test-fast")
    assert len(full) >= 3 and len(fast) >= 3, (full, fast)
    assert "ruff check" in full[0] and full[:2] == fast[:2] and "gate" in full[1], "both start with the same gates"
    assert "not slow" in fast[-1] and "not slow" not in full[-1]
    subset = _test_runs("test", "PYTEST_ARGS=-k classroom")
    assert subset[-1].endswith("-k classroom") and not any("classroom" in line for line in subset[:-1])


def test_the_readme_quotes_the_committed_gpu_figures():
    """The speedups the README states are the ones benchmarks/gpu-results.json records for the references: the
    number of gradings, the GPU they ran on, the range of medians and the lowest single grading."""
    import json

    results = json.loads((REPO / "benchmarks" / "gpu-results.json").read_text())
    refs = [e["reference"] for e in results["exercises"].values() if e.get("reference")]
    assert all(r["passed"] == r["runs"] for r in refs)
    low, high = min(r["speedup_median"] for r in refs), max(r["speedup_median"] for r in refs)
    fewest, most, gpus = min(r["runs"] for r in refs), max(r["runs"] for r in refs), {r["gpu"] for r in refs}
    assert len(gpus) == 1, f"the reference rows come from several GPUs: {gpus}; the README names one"
    text = " ".join((REPO / "README.md").read_text().split())
    times = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    assert f"Graded {times} times each by the current grader on an {gpus.pop()}" in text
    assert f"(median speedups of {low:.2f}x to {high:.2f}x over its baseline, the lowest single grading " \
           f"{min(r['speedup_min'] for r in refs):.1f}x)" in text
