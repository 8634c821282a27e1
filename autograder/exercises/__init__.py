"""The registry of exercises: id -> spec. Each exercise is a folder: spec.py (the checks), workload.py (what its
notebook and the submission's process use), cases/ (submissions the grader must reject or accept).

A spec is imported the first time its exercise is looked up, not when this package is: the ids alone (a
membership test, a listing of names) need no torch, so the classroom's orchestration (a unit per student, the
record step) and a workload's import stay light."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path

from autograder.core.protocol import Exercise

FOLDERS = ("ex01_eager_mode", "ex02_compile_pipeline", "ex03_compile_modes", "ex04_graph_breaks",
           "ex05_dynamic_shapes", "ex06_cuda_graphs")
HERE = Path(__file__).resolve().parent


class Registry(Mapping[str, Exercise]):
    """Exercise id (the folder name without its ``ex``) -> the ``EXERCISE`` of that folder's ``spec.py``."""

    def __init__(self, folders: tuple[str, ...]):
        self._folders = {folder.removeprefix("ex"): folder for folder in folders}
        self._loaded: dict[str, Exercise] = {}

    def __getitem__(self, exercise_id: str) -> Exercise:
        if exercise_id not in self._loaded:
            folder = self._folders[exercise_id]  # KeyError for an unknown id, as a dict's
            exercise = importlib.import_module(f"autograder.exercises.{folder}.spec").EXERCISE
            if exercise.id != exercise_id:
                raise RuntimeError(f"autograder/exercises/{folder}/spec.py defines exercise {exercise.id!r}, "
                                   f"not {exercise_id!r}: an exercise's id is its folder's name without 'ex'")
            self._loaded[exercise_id] = exercise
        return self._loaded[exercise_id]

    def __contains__(self, exercise_id: object) -> bool:  # Mapping's own would import the spec
        return exercise_id in self._folders

    def __iter__(self) -> Iterator[str]:
        return iter(self._folders)

    def __len__(self) -> int:
        return len(self._folders)


EXERCISES = Registry(FOLDERS)


def get_exercise(exercise_id: str) -> Exercise:
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        raise KeyError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}") from None


def cases_dir(exercise_id: str) -> Path:
    """The folder of an exercise's known-wrong, cheating and legitimate cases."""
    return HERE / f"ex{exercise_id}" / "cases"
