"""The registry of exercises: id -> spec. Each exercise is a folder: spec.py (the checks), workload.py (what its
notebook and the submission's process use), cases/ (submissions the grader must reject or accept)."""

from __future__ import annotations

import importlib
from pathlib import Path

from autograder.core.protocol import Exercise

FOLDERS = ("ex01_eager_mode", "ex02_compile_pipeline", "ex03_compile_modes", "ex04_graph_breaks",
           "ex05_dynamic_shapes", "ex06_cuda_graphs")
HERE = Path(__file__).resolve().parent
EXERCISES: dict[str, Exercise] = {}
for _folder in FOLDERS:
    _spec = importlib.import_module(f"autograder.exercises.{_folder}.spec")
    EXERCISES[_spec.EXERCISE.id] = _spec.EXERCISE


def get_exercise(exercise_id: str) -> Exercise:
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        raise KeyError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}") from None


def cases_dir(exercise_id: str) -> Path:
    """The folder of an exercise's known-wrong, cheating and legitimate cases."""
    return HERE / f"ex{exercise_id}" / "cases"
