"""Where things are in a checkout of the course: the one module that knows the repository's layout."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LESSONS = REPO / "lessons"
SOLUTIONS = REPO / "solutions"
EXERCISES = REPO / "exercises"
BENCHMARKS = REPO / "benchmarks"
BUILD = REPO / "build"


def solution(exercise_id: str) -> Path:
    return SOLUTIONS / exercise_id / f"{exercise_id}.ipynb"


def student_version(exercise_id: str) -> Path:
    return EXERCISES / exercise_id / f"{exercise_id}.ipynb"
