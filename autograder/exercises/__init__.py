"""The registry of exercises: id -> spec. Each spec lives in its own module (ex01_eager_mode.py, ...)."""

from __future__ import annotations

from pathlib import Path

from autograder.exercises import (ex01_eager_mode, ex02_compile_pipeline, ex03_compile_modes, ex04_graph_breaks,
                                  ex05_dynamic_shapes, ex06_cuda_graphs)
from autograder.exercises.spec import Exercise

EXERCISES: dict[str, Exercise] = {e.id: e for e in (ex01_eager_mode.EXERCISE, ex02_compile_pipeline.EXERCISE,
                                                      ex03_compile_modes.EXERCISE, ex04_graph_breaks.EXERCISE,
                                                      ex05_dynamic_shapes.EXERCISE, ex06_cuda_graphs.EXERCISE)}
SUBMISSIONS = Path(__file__).parent / "submissions"


def get_exercise(exercise_id: str) -> Exercise:
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        raise KeyError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}") from None
