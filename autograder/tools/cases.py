"""Red-team cases: cheating or broken submissions (tests/redteam/<exercise>/*.py), each built on top of the
reference solution, with the verdict the grader must reach. Used by the CPU test suite and `make gpu-check`.

Each file starts with one header line:
    # outcome: rejected | checks: a,b | reason: words in the message | device: any|cpu|gpu
``checks: *`` means every check; ``outcome: passed`` is a legitimate submission that must pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from autograder.grader import PASSED, Report

REPO = Path(__file__).resolve().parent.parent
REDTEAM = REPO / "tests" / "redteam"
SECRET_FILE_NAME = "course-redteam-secret.txt"


@dataclass(frozen=True)
class Case:
    exercise: str
    path: Path
    outcome: str  # "rejected", "passed" or "secret-hidden"
    checks: tuple[str, ...]  # ("*",) for all
    reason: str
    device: str  # "any", "cpu" or "gpu"

    @property
    def name(self) -> str:
        return self.path.stem


def from_wrong_approach(exercise: str, wrong, cuda: bool = False) -> Case:
    """A known-wrong approach of an exercise spec, judged like a red-team case."""
    from autograder.exercises import SUBMISSIONS

    return Case(exercise, SUBMISSIONS / exercise / wrong.file, "rejected", wrong.checks(cuda), wrong.because,
                "gpu" if wrong.gpu_only else "any")


def parse(path: Path) -> Case:
    header = Path(path).read_text().splitlines()[0]
    fields = dict(part.strip().split(": ", 1) for part in header.lstrip("# ").split(" | "))
    checks = tuple(c for c in fields["checks"].split(",") if c and c != "-")
    return Case(Path(path).parent.name, Path(path), fields["outcome"], checks, fields["reason"], fields["device"])


def cases(exercise: str | None = None, device: str | None = None) -> list[Case]:
    found = [parse(p) for p in sorted(REDTEAM.glob("*/*.py")) if re.match(r"\d\d_", p.parent.name)]
    return [c for c in found if (exercise is None or c.exercise == exercise)
            and (device is None or c.device in ("any", device))]


def verdict(case: Case, report: Report) -> tuple[bool, str]:
    """Did the grader treat the case as it must? Returns (ok, explanation)."""
    if case.outcome == "passed":
        bad = [r.line() for r in report.results if r.status != PASSED]
        return not bad, "passed" if not bad else "wrongly failed: " + "; ".join(bad)
    targets = [r for r in report.results if case.checks == ("*",) or r.id in case.checks]
    if not targets:
        return False, f"none of the checks {case.checks} were graded"
    slipped = [r.id for r in targets if r.status == PASSED]
    if slipped:
        return False, f"{', '.join(slipped)} passed a cheat"
    messages = " ".join(f"{r.message} {r.hint}" for r in targets).lower()
    if case.reason.lower() not in messages:
        return False, f"rejected, but not for the expected reason {case.reason!r}: {messages[:400]}"
    return True, "rejected"
