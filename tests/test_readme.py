"""Every command the README shows is run by a test or by CI, and names a real make target."""

import re

from conftest import REPO

# command -> what runs it
COVERED = {
    "make lab": "tests/test_make_lab.py (with ARGS=--no-browser)",
    "make lab ARGS=--no-browser": "tests/test_make_lab.py",
    "make test": ".ci/run",
    "make help": "tests/test_setup.py::test_make_help_lists_every_target_with_one_line",
    "make strip": "tests/test_notebook_hygiene.py::test_make_strip_cleans_a_dirty_notebook",
    "make exercises": "tests/test_exercises_in_sync.py (RELEASE_DIR=tmp)",
    "make check SIZE=smoke DEVICE=cpu": "tests/test_notebooks.py::test_make_check_runs_the_named_notebooks",
    "python -m autograder list": "tests/test_exercises.py::test_cli_lists_each_exercise_and_its_entry_points",
    "python -m autograder grade 01_eager_mode solutions/01_eager_mode/01_eager_mode.ipynb --allow-skip":
        "tests/test_exercises.py::test_cli_grades_the_reference_solution",
    "make release": "tests/test_classroom.py (autograder.tools.classroom release, what the target runs)",
    "make autograde": "tests/test_classroom.py (autograder.tools.classroom autograde)",
    "make feedback": "tests/test_classroom.py (autograder.tools.classroom feedback)",
    "make grades": "tests/test_classroom.py (autograder.tools.classroom grades)",
    "make gpu-check PY=python3": "tests/test_setup.py::test_gpu_check_refuses_to_run_without_a_gpu (and on the GPU)",
}


def readme_commands() -> list[str]:
    blocks = re.findall(r"```(?:bash|sh|shell|console)\n(.*?)```", (REPO / "README.md").read_text(), flags=re.S)
    return [line.strip().removeprefix("$ ") for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_shows_the_two_commands_first():
    assert readme_commands()[:2] == ["make lab", "make test"]


def test_every_readme_command_is_run_by_a_test_or_ci():
    missing = [cmd for cmd in readme_commands() if cmd not in COVERED]
    assert not missing, f"README commands that nothing runs: {missing} (add a test and list it in COVERED)"


def test_every_make_target_in_the_readme_exists():
    targets = set(re.findall(r"^([a-z-]+):", (REPO / "Makefile").read_text(), flags=re.M))
    for cmd in readme_commands():
        if cmd.startswith("make "):
            assert cmd.split()[1] in targets, f"README uses `{cmd}` but the Makefile has no such target"
