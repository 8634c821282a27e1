"""Cases: submissions the grader must reject or accept, one file each in ``autograder/exercises/<ex>/cases/``,
each built on top of the exercise's reference solution (its code runs after the solution's cells). Used by the
CPU test suite and by `make gpu-check`.

Each file starts with one header line:
    # outcome: rejected | kind: wrong | checks: a,b | gpu_checks: c | reason: words | note: words | device: any
    (and, for a cheat, `| class: 3`)
* outcome: ``rejected`` (the named checks must fail, for the reason), ``passed`` (the named checks, or all with
  ``-``, must pass), ``diagnosed`` (the named checks pass, since what is wrong is only the worker's word, and a
  note shows it) or ``secret-hidden`` (the instructor's secret must not reach the submission);
* kind: ``wrong`` (a plausible wrong approach), ``cheat`` (an attempt to fool the grader) or ``honest`` (a
  legitimate technique other than the reference's);
* checks: the checks that must fail (or pass) wherever the case runs; ``*``: every check;
* gpu_checks: checks that must also fail (a rejected case) or pass (a passed one) on a GPU (the speed gate
  exists only there);
* reason: words the failure message (or hint) must contain (``a / b``: either);
* note: words a diagnosis note (what the worker said about itself, never graded) must contain (``a / b``: either),
  where the note is what tells the case: a diagnosed case, and a rejected one on a device where what rejects it
  (a timed check) cannot run: how a wrong structure that no fact of the judge's shows is still pointed out;
* device: where the case runs at all: ``any``, ``cpu`` or ``gpu``;
* class: for cheats, which kind of attack it is (docs/THREAT_MODEL.md numbers them);
* policy: ``learner`` where the CPU suite must grade it as a learner's CPU grading does (no CPU speed gate: the
  timed checks say they need a GPU) rather than with the suite's CPU gate, because that path is what it attacks.
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
    note: str = ""  # words a diagnosis note must contain
    policy: str = ""  # "learner": the CPU suite grades it without a CPU speed gate

    @property
    def name(self) -> str:
        return self.path.stem

    def must_fail(self, cuda: bool) -> tuple[str, ...]:
        return self.checks + (self.gpu_checks if cuda else ())

    def must_pass(self, cuda: bool) -> tuple[str, ...]:
        """A passed case's checks (() for all): on a GPU its gpu_checks too (a speed gate a CPU cannot time)."""
        return self.checks + (self.gpu_checks if cuda and self.checks else ())

    def graded_checks(self, cuda: bool) -> list[str] | None:
        """The checks a grading of this case needs (None: all)."""
        wanted = self.must_fail(cuda) if self.outcome == "rejected" else self.must_pass(cuda)
        if self.outcome == "rejected" and not wanted:  # told by its note here (what fails it needs a GPU): all
            return None
        return None if not wanted or "*" in wanted else list(wanted)


def parse(path: Path) -> Case:
    header = Path(path).read_text().splitlines()[0]
    fields = dict(part.strip().split(": ", 1) for part in header.lstrip("# ").split(" | "))

    def ids(text: str) -> tuple[str, ...]:
        return tuple(c for c in text.split(",") if c and c != "-")

    exercise = re.sub(r"^ex", "", Path(path).parent.parent.name)
    return Case(exercise, Path(path), fields["outcome"], fields.get("kind", "cheat"), ids(fields["checks"]),
                ids(fields.get("gpu_checks", "")), fields.get("reason", "-"), fields.get("device", "any"),
                fields.get("class", ""), fields.get("note", ""), fields.get("policy", ""))


def cases(exercise: str | None = None, device: str | None = None, kind: str | None = None) -> list[Case]:
    found = [parse(p) for folder in FOLDERS for p in sorted((HERE / folder / "cases").glob("*.py"))]
    return [c for c in found if (exercise is None or c.exercise == exercise)
            and (device is None or c.device in ("any", device)) and (kind is None or c.kind == kind)]


def _noted(case: Case, report: Report) -> str:
    """'' if the case's note shows among the report's notes (or it names none), else why not."""
    if not case.note:
        return ""
    notes = " ".join(n for r in report.results for n in r.notes).lower()
    if any(words.strip().lower() in notes for words in case.note.split(" / ")):
        return ""
    return f"no note says {case.note!r} (notes: {notes[:300] or 'none'})"


def verdict(case: Case, report: Report, cuda: bool = False) -> tuple[bool, str]:
    """Did the grader treat the case as it must? Returns (ok, explanation)."""
    if not report.results:
        return False, "nothing was graded"
    missing_note = _noted(case, report)
    if case.outcome in ("passed", "diagnosed"):
        wanted = case.must_pass(cuda)
        targets = [r for r in report.results if not wanted or r.id in wanted]
        bad = [r.line() for r in targets if r.status != PASSED]
        if not targets:
            return False, f"none of the checks {wanted} were graded"
        ungraded = [c for c in wanted if c not in {r.id for r in report.results}]
        if ungraded:  # a promise nobody checked is not kept (a GPU sitting once graded honest cases without speed)
            return False, f"not all of the checks {wanted} were graded ({', '.join(ungraded)} was not)"
        if bad:
            return False, "wrongly failed: " + "; ".join(bad)
        if missing_note:
            return False, f"passed, but {missing_note}"
        return True, case.outcome
    wanted = case.must_fail(cuda)
    if not wanted:  # on this device the case is told only by a note (what fails it needs a GPU)
        return (not missing_note), missing_note or "diagnosed"
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
