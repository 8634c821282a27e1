"""What the exercise notebooks call: graded test cells and the self-check result card.

* ``grade_cell(EXERCISE, CHECK, globals())`` in each graded test cell. In the classroom's feedback run
  (``COURSE_REPORT_DIR`` set) it only shows the trusted report made outside the kernel. Under a plain
  ``nbgrader autograde`` (``NBGRADER_EXECUTION=autograde``) it has the submitted notebook file graded by a
  separate judge process (``python -m autograder grade``), once per notebook, and reports this cell's check;
  elsewhere (self-study, ``nbgrader validate``, papermill) a judge process grades the live functions of this
  kernel (:mod:`autograder.live`), once per set of definitions. It raises on failure, so nbgrader and papermill see it.
* ``check(EXERCISE, globals())`` grades everything and shows a result card.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.core.protocol import PASSED, SKIPPED, CheckFailed, Report
from autograder.core.submission import DEFAULT_LIMIT_S, SubmissionError, grading_limit, submission_code
from autograder.exercises import get_exercise
from autograder.live import LiveRequest, grade_live

SKIP_ENV = "COURSE_ALLOW_SKIP"  # CI sets it: speed checks that need a GPU may be skipped on a CPU
REPORT_ENV = "COURSE_REPORT_DIR"  # classroom feedback runs: where the trusted reports are (read-only)
_cache: dict = {}


def skip_allowed() -> bool:
    """Whether a check that needs a GPU may be skipped in a grading this process starts (CI, a class on CPUs)."""
    return os.environ.get(SKIP_ENV) == "1"


def learner_skips() -> bool:
    """Whether a learner's own notebook shows a check that needs a GPU as "not graded here" instead of failing it:
    on a machine without a CUDA GPU, unless COURSE_ALLOW_SKIP says otherwise (0: fail it, as a CI that must have a
    GPU wants) or nbgrader is grading (then a skipped check is 0 points and fails). The check still earns nothing:
    the card and the progress table say it was not graded."""
    setting = os.environ.get(SKIP_ENV, "").strip()
    if _nbgrader_autograde() or setting == "0":
        return False
    if setting == "1":
        return True
    import torch

    return not torch.cuda.is_available()


def _nbgrader_autograde() -> bool:
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def autograding() -> bool:
    """True while ``nbgrader autograde`` runs the notebook or a grader's worker loads it.

    Cells that only show the learner results (compile, time, print) skip then: the graded cells measure the
    code themselves, and every such cell would otherwise run twice per submission (kernel and grader)."""
    return _nbgrader_autograde() or bool(os.environ.get("AUTOGRADER_WORKER"))


def _entry_points(exercise_id: str, namespace: dict) -> tuple:
    return tuple(namespace.get(name) for name in get_exercise(exercise_id).entry_points)


def run_judge(exercise_id: str, path: Path, out: Path, log: Path, *, env: dict, timeout: float,
              grace: float) -> tuple[Report | None, int | str]:
    """``python -m autograder grade`` on the file at ``path`` (hidden tests included) in a judge process that has
    run none of this process's code: (its report, or None if it wrote none; its exit code or "timeout")."""
    args = [sys.executable, "-m", "autograder", "grade", exercise_id, str(path), "--json", str(out), "--hidden",
            "--timeout", str(timeout)] + (["--allow-skip"] if skip_allowed() else [])
    with open(log, "w") as output:  # a file, not a pipe: daemons the judge starts inherit its stdout
        try:
            code = subprocess.run(args, env=env, stdout=output, stderr=subprocess.STDOUT,
                                  timeout=timeout + grace).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    try:
        return (Report.from_json(out.read_text()) if out.exists() else None), code
    except (ValueError, TypeError, KeyError):
        return None, code


def submission_timeout(path: Path | None = None) -> float:
    """A grading's limit: ``COURSE_SUBMISSION_TIMEOUT`` if set, else what the submission at ``path`` asks for
    (600 s; 1800 s where it asks torch.compile for max-autotune: grading_limit)."""
    if os.environ.get("COURSE_SUBMISSION_TIMEOUT"):
        return float(os.environ["COURSE_SUBMISSION_TIMEOUT"])
    try:
        return grading_limit(submission_code(path)) if path is not None else DEFAULT_LIMIT_S
    except (SubmissionError, OSError, ValueError, MemoryError, RecursionError):  # the grading reports what it makes
        return DEFAULT_LIMIT_S  # of an unreadable file; a limit is never a reason to stop a class


def _grade_file_in_judge(exercise_id: str, path: Path) -> Report:
    """The submitted file, graded by a judge process that has run none of this kernel's code."""
    with tempfile.TemporaryDirectory(prefix="autograder-report-") as scratch:
        log = Path(scratch) / "judge.log"
        env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
        report, code = run_judge(exercise_id, path, Path(scratch) / "report.json", log, env=env,
                                 timeout=submission_timeout(path), grace=120)
        if report is None:
            tail = "\n".join(log.read_text(errors="replace").strip().splitlines()[-8:])
            raise RuntimeError(f"the grader ended without a report (exit code {code}):\n{tail}")
        return report


def report_for(exercise_id: str, namespace: dict, progress=None) -> Report:
    """Grade once per notebook (autograde) or per set of definitions (live), then reuse the report."""
    if os.environ.get("AUTOGRADER_WORKER"):
        raise RuntimeError("a graded test cell ran inside the grader: the notebook's test cells were altered")
    if _nbgrader_autograde() and os.environ.get(REPORT_ENV):
        # The classroom path: the trusted grading already ran outside this kernel; its report is only shown
        # here. The score is recorded from that report, never from this kernel's cells.
        path = Path(os.environ[REPORT_ENV]) / f"{exercise_id}.json"
        if not path.exists():
            raise RuntimeError(f"no trusted report at {path}: the classroom grading did not produce one")
        if ("shown", str(path)) not in _cache:
            _cache[("shown", str(path))] = report = Report.from_json(path.read_text())
            print(f"(your notebook was graded in separate processes in {report.seconds:.1f} s, "
                  f"{report.environment.get('sandbox', 'sandbox not recorded')}; these cells show that grading)")
        return _cache[("shown", str(path))]
    if _nbgrader_autograde():
        path = Path.cwd() / f"{exercise_id}.ipynb"
        key = ("file", str(path), path.stat().st_mtime if path.exists() else None)
        if key not in _cache:
            report = _cache[key] = _grade_file_in_judge(exercise_id, path)
            load_s = report.environment.get("load_s")
            print(f"(your notebook was graded in separate processes in {report.seconds:.1f} s"
                  + (f", {load_s:.1f} s of it loading your cells" if load_s is not None else "") + ")")
        return _cache[key]
    # Live: regrade whenever the learner redefines an entry point (cached objects are compared by identity).
    objects = _entry_points(exercise_id, namespace)
    cached = _cache.get(exercise_id)
    if cached is None or any(a is not b for a, b in zip(cached[0], objects, strict=True)):
        report = grade_live(LiveRequest(exercise_id, allow_skip=learner_skips()), namespace, progress)
        cached = _cache[exercise_id] = (objects, report)
    return cached[1]


def _raise_unless_passed(result) -> None:
    """A skip (a check that needs a GPU, on a machine without one) lets papermill and CI go on where skipping is
    allowed; under nbgrader it is a graded cell that earned nothing, and fails as such: the feedback and the
    gradebook then say what the trusted record says (0, not graded)."""
    if result.status == PASSED or (result.status == SKIPPED and learner_skips()):
        return
    if result.status == SKIPPED:
        raise CheckFailed(f"not graded, 0 points: {result.message}", result.hint)
    raise CheckFailed(result.message, result.hint)


def grade_cell(exercise_id: str, check_id: str, namespace: dict) -> None:
    """Report one check; raise CheckFailed unless it passed (or was skipped where skipping is allowed)."""
    result = report_for(exercise_id, namespace).result(check_id)
    print("\n".join([result.line(), *result.note_lines()]))
    _raise_unless_passed(result)


def hidden_check(exercise_id: str, check_id: str, namespace: dict) -> None:
    """Run a check again on inputs drawn from a different, secret-derived stream (nbgrader hidden tests).

    Under ``nbgrader autograde`` the grading of the file has already run it; elsewhere a judge runs it here,
    on the live functions."""
    if _nbgrader_autograde():
        result = report_for(exercise_id, namespace).hidden_result(check_id)
    else:
        result = _hidden_live(exercise_id, check_id, namespace).result(check_id)
    print("\n".join(["hidden test: " + result.line(), *result.note_lines()]))
    _raise_unless_passed(result)


def _hidden_live(exercise_id: str, check_id: str, namespace: dict) -> Report:
    """The hidden checks of the exercise whose functions are defined by now (``check_id`` always), graded live
    on the hidden stream by one judge and kept per set of definitions (as ``report_for``): the notebook's later
    hidden cells read the same report instead of starting a judge each."""
    exercise = get_exercise(exercise_id)
    objects = _entry_points(exercise_id, namespace)
    cached = _cache.get(("hidden", exercise_id))
    if cached is None or check_id not in cached[2] or any(a is not b for a, b in zip(cached[0], objects, strict=True)):
        ready = [c.id for c in exercise.checks if c.id in exercise.hidden_checks
                 and (c.id == check_id or all(namespace.get(n) is not None for n in c.needs))]
        request = LiveRequest(exercise_id, allow_skip=learner_skips(), hidden_stream=True, only=ready)
        cached = _cache[("hidden", exercise_id)] = (objects, grade_live(request, namespace), set(ready))
    return cached[1]


def check(exercise_id: str, namespace: dict) -> None:
    """Grade every check now and show the result card (widgets where available, text otherwise); then raise one
    short CheckFailed naming the checks that did not pass, so papermill and Run All end on a failing cell.

    The graded cells above are tagged ``raises-exception``: JupyterLab's Run All goes on past them, so this card is
    reached and shows everything the learner wrote; nbgrader scores those cells by their error output all the same.
    """
    from autograder.course import display, progress

    if os.environ.get("AUTOGRADER_WORKER"):
        return  # the grader's worker loading the notebook: grading runs its own checks
    if _nbgrader_autograde():  # the feedback page shows the card of the grading that decided the scores
        display.show_report(report_for(exercise_id, namespace), get_exercise(exercise_id))
        return

    bar = display.Progress(f"Grading {exercise_id}")
    report = report_for(exercise_id, namespace, progress=bar.update)
    bar.close()
    display.show_report(report, get_exercise(exercise_id))
    speedups = [r.details["speedup"] for r in report.results if r.passed and "speedup" in r.details]
    not_graded = sum(r.max_points for r in report.results if r.status == SKIPPED)
    progress.record_exercise(exercise_id, report.points, report.max_points, max(speedups) if speedups else None,
                             not_graded=not_graded)
    missing = [r for r in report.results if not report.counts(r)]
    if missing:
        names = ", ".join(f"{r.id} ({r.status})" for r in missing)
        raise CheckFailed(f"{report.points:g}/{report.max_points} points: {len(missing)} of {len(report.results)} "
                          f"checks did not pass: {names}", "the card above says why, check by check")


_hints: dict = {}


def hint(exercise_id: str, check_id: str) -> str:
    """Print (and return) the next hint for one check; each call reveals one more."""
    from autograder.course.display import HintLadder

    exercise = get_exercise(exercise_id)
    if check_id not in {c.id for c in exercise.checks}:
        raise KeyError(f"{exercise_id} has no check {check_id!r}; its checks: {[c.id for c in exercise.checks]}")
    ladder = _hints.setdefault((exercise_id, check_id), HintLadder(check_id, exercise.hints.get(check_id, [])))
    text = ladder.next()
    print(text)
    return text


__all__ = ["autograding", "check", "grade_cell", "hidden_check", "hint"]
