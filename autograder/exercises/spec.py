"""Exercises as data: what each one asks for, how it is checked, and what must be rejected."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Check:
    """One graded check. ``run(namespace, ctx)`` raises CheckFailed or returns a message (and details)."""

    id: str  # the nbgrader grade_id of the test cell that reports it
    title: str
    points: int
    run: Callable
    needs: tuple[str, ...]  # entry points the check calls
    kind: str = "correctness"  # "correctness", "speed" or "structure"
    hidden: bool = False  # nbgrader's hidden test re-runs it on a second secret stream (never a speed check)


@dataclass(frozen=True)
class WrongApproach:
    """A known-wrong submission (a file in autograder/exercises/submissions/<id>/) and why it must fail."""

    file: str
    fails: tuple[str, ...]  # check ids that must fail
    because: str  # a phrase the failure message must contain
    gpu_only: bool = False  # rejected only where the mechanism exists (a CUDA GPU)
    gpu_fails: tuple[str, ...] = ()  # checks that also fail on a GPU (a speed check that cannot run on a CPU)

    def checks(self, cuda: bool) -> tuple[str, ...]:
        return self.fails + self.gpu_fails if cuda else self.fails


@dataclass(frozen=True)
class Exercise:
    id: str  # the folder name: 01_eager_mode ... 06_cuda_graphs
    title: str
    entry_points: tuple[str, ...]
    checks: tuple[Check, ...]
    baseline: str  # what the speed gate compares against, in words
    speed_gate: float = 1.5
    cpu_gate: float | None = None  # a CPU speed gate where the mechanism exists on CPU, else None
    wrong: tuple[WrongApproach, ...] = ()
    hints: dict[str, list[str]] = field(default_factory=dict)  # check id -> hints, revealed one at a time

    @property
    def points(self) -> int:
        return sum(c.points for c in self.checks)

    @property
    def hidden_checks(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.checks if c.hidden)

    def check(self, check_id: str) -> Check:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(f"{self.id} has no check {check_id!r}; it has {[c.id for c in self.checks]}")
