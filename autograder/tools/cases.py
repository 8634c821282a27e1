"""Cases: submissions the grader must reject or accept, one file each in ``autograder/exercises/<ex>/cases/``,
each built on top of the exercise's reference solution (its code runs after the solution's cells). Used by the
CPU test suite and by `make gpu-check`.

Each file starts with one header line:
    # outcome: rejected | kind: wrong | checks: a,b | gpu_checks: c | reason: words | device: any | class: 3
* outcome: ``rejected`` (the named checks must fail, for the reason), ``passed`` (the named checks, or all with
  ``-``, must pass) or ``secret-hidden`` (the instructor's secret must not reach the submission);
* kind: ``wrong`` (a plausible wrong approach), ``cheat`` (an attempt to fool the grader) or ``honest`` (a
  legitimate technique other than the reference's);
* checks: the checks that must fail (or pass) wherever the case runs; ``*``: every check;
* gpu_checks: checks that must also fail on a GPU (the speed gate exists only there);
* reason: words the failure message (or hint) must contain (``a / b``: either);
* device: where the case runs at all: ``any``, ``cpu`` or ``gpu``;
* class: for cheats, which kind of attack it is (docs/THREAT_MODEL.md numbers them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from autograder.core.protocol import PASSED, Report
from autograder.exercises import FOLDERS, HERE

SECRET_FILE_NAME = "course-redteam-secret.txt"


@dataclass(frozen=True)
class Case:
    exercise: str
    path: Path
    outcome: str
    kind: str
    checks: tuple[str, ...]  # ("*",) for all; () for "all" in a passed case
    gpu_checks: tuple[str, ...]
    reason: str
    device: str
    attack: str = ""  # the threat model's class of a cheat

    @property
    def name(self) -> str:
        return self.path.stem

    def must_fail(self, cuda: bool) -> tuple[str, ...]:
        return self.checks + (self.gpu_checks if cuda else ())

    def graded_checks(self, cuda: bool) -> list[str] | None:
        """The checks a grading of this case needs (None: all)."""
        wanted = self.must_fail(cuda)
        return None if not wanted or "*" in wanted else list(wanted)


def parse(path: Path) -> Case:
    header = Path(path).read_text().splitlines()[0]
    fields = dict(part.strip().split(": ", 1) for part in header.lstrip("# ").split(" | "))

    def ids(text: str) -> tuple[str, ...]:
        return tuple(c for c in text.split(",") if c and c != "-")

    exercise = re.sub(r"^ex", "", Path(path).parent.parent.name)
    return Case(exercise, Path(path), fields["outcome"], fields.get("kind", "cheat"), ids(fields["checks"]),
                ids(fields.get("gpu_checks", "")), fields.get("reason", "-"), fields.get("device", "any"),
                fields.get("class", ""))


def cases(exercise: str | None = None, device: str | None = None, kind: str | None = None) -> list[Case]:
    found = [parse(p) for folder in FOLDERS for p in sorted((HERE / folder / "cases").glob("*.py"))]
    return [c for c in found if (exercise is None or c.exercise == exercise)
            and (device is None or c.device in ("any", device)) and (kind is None or c.kind == kind)]


def verdict(case: Case, report: Report, cuda: bool = False) -> tuple[bool, str]:
    """Did the grader treat the case as it must? Returns (ok, explanation)."""
    if not report.results:
        return False, "nothing was graded"
    if case.outcome == "passed":
        targets = [r for r in report.results if not case.checks or r.id in case.checks]
        bad = [r.line() for r in targets if r.status != PASSED]
        if not targets:
            return False, f"none of the checks {case.checks} were graded"
        return not bad, "passed" if not bad else "wrongly failed: " + "; ".join(bad)
    wanted = case.must_fail(cuda)
    targets = [r for r in report.results if "*" in wanted or r.id in wanted]
    if not targets or ("*" not in wanted and len(targets) < len(wanted)):
        return False, f"not all of the checks {wanted} were graded"
    slipped = [r.id for r in targets if r.status == PASSED]
    if slipped:
        return False, f"{', '.join(slipped)} passed a {case.kind} case"
    messages = " ".join(f"{r.message} {r.hint}" for r in targets).lower()
    if not any(reason.strip().lower() in messages for reason in case.reason.split(" / ")):
        return False, f"rejected, but not for the expected reason {case.reason!r}: {messages[:400]}"
    return True, "rejected"
