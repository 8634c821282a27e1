"""The grading vocabulary: checks and exercises as data, outcomes, results and the report.

Nothing here runs a submission; every module of the trusted side and the notebooks' result card share it.
"""

from __future__ import annotations

import json
import platform
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

PASSED, FAILED, SKIPPED, INCONCLUSIVE = "passed", "failed", "skipped", "inconclusive"
VERIFIED = "verified"  # CheckResult.trust when nothing the submission's process said was believed
# The instructor's grading secret (the seed of the hidden inputs): this variable, or a 0600 file named by it with
# "_FILE" appended (correctness.grading_secret reads it; the classroom's tools pass it on, and never to student code)
SECRET_ENV = "COURSE_GRADING_SECRET"


class CheckFailed(AssertionError):
    """A graded check failed. ``hint`` says what to look at; ``details`` go into the report."""

    def __init__(self, message: str, hint: str = "", details: dict | None = None):
        super().__init__(message + (f"\n  Hint: {hint}" if hint else ""))
        self.reason, self.hint, self.details = message, hint, details or {}

    def _render_traceback_(self) -> list[str]:
        """What IPython shows for it in a notebook: the message and the hint, not the grader's call stack."""
        return [f"\x1b[0;31mCheckFailed\x1b[0m: {self.args[0]}"]


class NeedsGPU(Exception):
    """The check's mechanism only exists on a CUDA GPU."""


class Inconclusive(Exception):
    """The measurement stayed too noisy to decide, after re-measuring."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.details = details or {}


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float


@dataclass(frozen=True)
class Check:
    """One graded check. ``run(ctx)`` drives the submission's process and raises CheckFailed, or returns a message
    (and details): its verdict may rest only on the facts in ``decided_by``, each established by the judge (its own
    computation, its clock, or an answer it compared with its own truth: core/trust.py). ``diagnose(ctx)``, run
    after the verdict whatever it was, may read what the worker says about itself (compile counters, a kept output
    read back) and returns notes for the card: the ``diagnostics``, which never decide."""

    id: str  # the nbgrader grade_id of the test cell that reports it
    title: str
    points: int
    run: Callable
    needs: tuple[str, ...]  # entry points the check calls
    decided_by: tuple = ()  # trust.Fact: judge, clock or answer
    kind: str = "correctness"  # "correctness", "speed" or "structure"
    hidden: bool = False  # nbgrader's hidden test re-runs it on a second secret stream (never a speed check)
    diagnose: Callable | None = None  # ctx -> list of notes (what the worker said; not graded)
    diagnostics: tuple = ()  # trust.Fact with source worker: what diagnose reads
    # checks whose measurements this one reads (from GradeContext.notes): grading it alone grades those first too
    uses: tuple[str, ...] = ()

    def __post_init__(self):
        from autograder.core import trust

        if not self.decided_by:
            raise ValueError(f"check {self.id} declares no fact that decides it (decided_by)")
        bad = [f.what for f in self.decided_by if f.source not in trust.DECIDING]
        if bad:
            raise ValueError(f"check {self.id} would be decided by the worker's word: {bad}; only facts the judge "
                             "established (judge, clock, answer) decide; show the rest as diagnostics")
        if any(f.source != trust.WORKER for f in self.diagnostics):
            raise ValueError(f"check {self.id}: diagnostics are the worker's word (source worker)")
        if bool(self.diagnostics) != (self.diagnose is not None):
            raise ValueError(f"check {self.id}: diagnostics and a diagnose function come together")

    @property
    def timed(self) -> bool:
        """The verdict depends on timings: another program on the same GPU or CPU can change it."""
        from autograder.core.trust import CLOCK

        return self.kind == "speed" or any(f.source == CLOCK for f in self.decided_by)


@dataclass(frozen=True)
class Exercise:
    id: str  # the folder name: 01_eager_mode ... 06_cuda_graphs
    title: str
    entry_points: tuple[str, ...]
    checks: tuple[Check, ...]
    baseline: str  # what the speed gate compares against, in words
    speed_gate: float = 1.5
    hints: dict[str, list[str]] = field(default_factory=dict)  # check id -> hints, revealed one at a time
    # prepare(device, secret) -> dict: what the judge builds (and compiles) before any worker exists
    prepare: Callable | None = None
    # The judge compiles code itself (a baseline, a ground truth): it then compiles a small function before any
    # worker exists, to import the compiler's modules while no submission can have touched them (grading.warm_judge).
    # A judge that compiles nothing skips that (about 3 CPU-s on a CPU); its report lists what it imported late.
    judge_compiles: bool = False
    # A compile budget that charges loading the submission (a compile, or a cache warmed, at import is still a
    # compile): loading is stopped when it runs past it, and every check fails with the budget's message, instead
    # of the grading waiting out its whole limit to say the same.
    load_budget: Callable[[], float] | None = None  # its seconds (an instructor may set another)

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


def visible(text: str) -> str:
    """``text`` with every control and format character shown as an escape (``\\x1b``), newlines and tabs kept:
    what a submission wrote (an exception's message, a thread's name) cannot move a terminal's cursor, rewrite
    the report's lines above it (a red team printed a fake "3/3" and "[PASS]" over a failed check) or reorder
    text with bidirectional overrides."""
    return "".join(c if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf") else
                   (f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}") for c in str(text))


@dataclass
class CheckResult:
    id: str
    title: str
    kind: str
    points: float
    max_points: int
    status: str
    message: str
    hint: str = ""
    details: dict = field(default_factory=dict)
    trust: str = VERIFIED  # what decided it (core/trust.label): always facts the judge established
    notes: list = field(default_factory=list)  # diagnostics: what the submission's process said, never graded

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def line(self) -> str:
        mark = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP", INCONCLUSIVE: "????"}[self.status]
        first = self.message.splitlines()[0] if self.message.strip() else ""
        return visible(f"[{mark}] {self.id} ({self.points:g}/{self.max_points}): {first}")

    def note_lines(self) -> list[str]:
        """The diagnostics, one line each: what the submission's process said about itself (not graded)."""
        return [visible(f"    note, not graded (your process's word): {n}") for n in self.notes]


@dataclass
class Report:
    exercise: str
    results: list[CheckResult]
    environment: dict
    seconds: float = 0.0
    skip_allowed: bool = False
    error: str = ""  # the submission could not be graded at all (did not load, timed out, ...)
    # nbgrader's hidden tests, graded in the same grading on a second secret stream (autograde only);
    # they score through their test cells, not through ``points``
    hidden: list[CheckResult] = field(default_factory=list)

    def counts(self, result: CheckResult) -> bool:
        """``result`` passed (a skip counts only where skipping was explicitly allowed)."""
        return result.status == PASSED or (result.status == SKIPPED and self.skip_allowed)

    def ok(self) -> bool:
        """Every check passed (a skip counts only where skipping was explicitly allowed)."""
        return bool(self.results) and all(self.counts(r) for r in self.results)

    @property
    def points(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def max_points(self) -> int:
        return sum(r.max_points for r in self.results)

    def result(self, check_id: str) -> CheckResult:
        for r in self.results:
            if r.id == check_id:
                return r
        raise KeyError(check_id)

    def hidden_result(self, check_id: str) -> CheckResult:
        for r in self.hidden:
            if r.id == check_id:
                return r
        raise KeyError(f"the grading did not run the hidden test of {check_id}")

    def cell_score(self, check: Check) -> float:
        """The points nbgrader records for ``check``'s graded cell: all of them when the check passed and so did
        its hidden test, else none. A check skipped (it needs a GPU this grading did not have) scores 0 whatever
        the grading allowed: a grade records only what was verified."""
        try:
            ok = self.result(check.id).status == PASSED
            if check.hidden:
                ok = ok and self.hidden_result(check.id).status == PASSED
        except KeyError:  # a check (or its hidden test) the report does not have: not passed
            return 0.0
        return float(check.points) if ok else 0.0

    def lines(self) -> list[str]:
        head = f"{self.exercise}: {self.points:g}/{self.max_points} points in {self.seconds:.1f} s"
        return [head] + [line for r in self.results for line in [r.line(), *r.note_lines()]]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, default=str)

    @classmethod
    def from_json(cls, text: str) -> Report:
        data = json.loads(text)
        data["results"] = [CheckResult(**r) for r in data["results"]]
        data["hidden"] = [CheckResult(**r) for r in data.get("hidden", [])]
        return cls(**data)

    @classmethod
    def failed(cls, exercise: Exercise, message: str, hint: str = "", seconds: float = 0.0,
               skip_allowed: bool = False, environment: dict | None = None) -> Report:
        """Every check of the exercise failed with one message (the submission could not be graded)."""

        def failed(checks):
            return [CheckResult(c.id, c.title, c.kind, 0.0, c.points, FAILED, message, hint) for c in checks]

        return cls(exercise.id, failed(exercise.checks), environment or {}, seconds, skip_allowed, error=message,
                   hidden=failed(c for c in exercise.checks if c.hidden))


def environment() -> dict:
    import torch

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {"torch": torch.__version__, "python": platform.python_version(), "gpu": gpu}
