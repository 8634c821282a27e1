"""Grade a submission file in a fresh subprocess with a time limit.

The parent never runs student code. The child (``python -m autograder.isolation``) imports the grader
first — binding its trusted functions (clock, synchronize, comparisons) before any student code exists —
fingerprints global torch state, drops the instructor's secret from its environment, loads the
submission and grades it. The report comes back in a file stamped with a one-time token that only the
parent and the child's grader know. Whatever goes wrong (an exception, ``sys.exit``, ``os._exit``, a
hang, an OOM kill, a malformed notebook, edits to the grader's own files) ends as a report with a clear
message and no points for the affected checks; it never raises into the caller.

Threat model: in-process Python is not a sandbox. A submission runs with the grader's privileges inside
the child and can, with enough effort, find the token or patch the grader's objects in memory. What is
defended is the list of known cheats in FACTS.md (tests/redteam/). Graders of untrusted classes should
also run this inside a container without network, with the course files read-only (docs/THREAT_MODEL.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.correctness import HIDDEN, SECRET_ENV, grading_secret
from autograder.exercises import get_exercise
from autograder.grader import FAILED, CheckResult, Report, environment

PACKAGE = Path(__file__).resolve().parent
DEFAULT_TIMEOUT_S = 600


def package_digest() -> str:
    """A hash of the grader's own source files, to notice a submission that edits them."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def failed_report(exercise_id: str, message: str, hint: str = "", seconds: float = 0.0,
                  allow_skip: bool = False) -> Report:
    """Every check of the exercise failed with one message (the submission could not be graded)."""
    exercise = get_exercise(exercise_id)

    def failed(checks):
        return [CheckResult(c.id, c.title, c.kind, 0.0, c.points, FAILED, message, hint) for c in checks]

    return Report(exercise_id, failed(exercise.checks), environment(), seconds, allow_skip, error=message,
                  hidden=failed(c for c in exercise.checks if c.hidden))


def grade_file(exercise_id: str, path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_S, allow_skip: bool = False,
               overrides: list[str | Path] = (), device: str | None = None, secret: str | None = None,
               cpu_gate: float | None = None, only: list[str] | None = None, hidden: bool = False) -> Report:
    """Grade the notebook or .py at ``path`` in a subprocess. ``overrides`` are .py files executed after it
    (how the known-wrong approaches and red-team cheats are built on top of the reference solution).
    ``hidden``: also grade the exercise's hidden checks on a second secret stream, in the same process
    (``nbgrader autograde``: its hidden test cells then read ``report.hidden``)."""
    get_exercise(exercise_id)  # unknown ids fail here, in the caller, with the list of known ones
    token = secrets.token_hex(16)
    digest_before = package_digest()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="autograder-") as scratch:
        report_path = Path(scratch) / "report.json"
        request = {"token": token, "exercise": exercise_id, "path": str(Path(path).resolve()),
                   "overrides": [str(Path(o).resolve()) for o in overrides], "allow_skip": allow_skip,
                   "secret": secret or grading_secret(), "device": device, "report": str(report_path),
                   "cpu_gate": cpu_gate, "only": only, "hidden": hidden}
        env = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, "NBGRADER_EXECUTION")}
        env["AUTOGRADER_WORKER"] = "1"
        child = subprocess.Popen([sys.executable, "-m", "autograder.isolation"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=scratch,
                                 start_new_session=True, text=True)
        try:
            output, _ = child.communicate(json.dumps(request), timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            output = ""
        finally:
            # The whole process group: nothing the submission started outlives its grading.
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            child.wait()
        seconds = time.perf_counter() - start
        if package_digest() != digest_before:
            return failed_report(exercise_id, "the submission modified the grader's own files; all checks fail",
                                 "never write to the course's autograder/ folder", seconds, allow_skip)
        if timed_out:
            return failed_report(exercise_id, f"grading timed out after {timeout:g} s (an infinite loop, a "
                                 "hang, or a compile that never ends?)", "run each cell yourself and check that "
                                 "it finishes", seconds, allow_skip)
        report = None
        if report_path.exists():
            try:
                data = json.loads(report_path.read_text())
                if data.get("token") == token:
                    report = Report.from_json(json.dumps(data["report"]))
            except (ValueError, KeyError, TypeError):
                report = None
        if report is None:
            tail = "\n".join((output or "").strip().splitlines()[-5:])
            code = child.returncode
            cause = f"killed by signal {-code} (out of memory?)" if code and code < 0 else f"exit code {code}"
            return failed_report(exercise_id, f"the grading process ended before reporting ({cause}): did "
                                 "your code call os._exit, crash Python, or exhaust memory?" +
                                 (f"\n{tail}" if tail else ""), "", seconds, allow_skip)
        report.seconds = seconds
        return report


def _child() -> int:
    """The worker: read the request, grade, write the token-stamped report."""
    request = json.loads(sys.stdin.read())
    sys.stdin.close()
    from autograder.grader import fingerprint, grade_namespace
    from autograder.submission import SubmissionError, load_namespace, submission_code

    state_before = fingerprint()
    exercise_id = request["exercise"]
    started = time.perf_counter()
    try:
        sources = submission_code(Path(request["path"]))
        sources += [Path(o).read_text() for o in request["overrides"]]
        namespace = load_namespace(*sources)
        load_s = time.perf_counter() - started

        def grade(secret, only):
            return grade_namespace(exercise_id, namespace, device=request["device"],
                                   allow_skip=request["allow_skip"], secret=secret, state_before=state_before,
                                   cpu_gate=request["cpu_gate"], only=only)

        report = grade(request["secret"], request["only"])
        report.environment["load_s"] = load_s
        if request["hidden"]:
            report.hidden = grade(request["secret"] + HIDDEN, list(get_exercise(exercise_id).hidden_checks)).results
    except SubmissionError as err:
        report = failed_report(exercise_id, str(err), "", 0.0, request["allow_skip"])
    payload = {"token": request["token"], "report": json.loads(report.to_json())}
    Path(request["report"]).write_text(json.dumps(payload))
    return 0


if __name__ == "__main__":
    sys.exit(_child())
