"""The one writer of the gradebook: records finished grading units (:mod:`autograder.tools.grade_student`).

    python -m autograder.tools.record --course C --results R

1. Each student's unit must have finished (``R/S/result.json``) and returned readable notebooks; otherwise the
   student is listed in ``autograded/failed.csv`` with the reason and nothing of theirs is recorded (a regrade
   records them later; no one else's grade changes).
2. The executed notebooks go to ``executed/S/A/``, and nbgrader records them with its own
   ``autograde --no-execute`` (locked test cells restored, kernelspec reset, nothing run).
3. Every graded cell's score is then set from the trusted report (``Report.cell_score``), never from what the
   kernel printed; where the two differ, the log says so (a bug, or a cell that tried to forge its score).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.core.protocol import Report
from autograder.core.sandbox import open_regular
from autograder.exercises import EXERCISES
from autograder.tools.grade_student import RESULT
from autograder.tools.notebooks import unreadable_reason
from autograder.tools.release import nbgrader_command

FAILED_CSV = "failed.csv"


def log_ending(unit: Path, assignment: str, limit: int = 300) -> str:
    """'; its log ends: ...' with the last line of the unit's feedback log for ``assignment`` (where a missing
    notebook's cause shows: no nbgrader importable, a kernel that did not start), printable characters only; '' if
    there is none. The log is the sandboxed run's output: read as a regular file, its tail only."""
    log = unit / "logs" / f"{assignment}-feedback.log"
    try:
        with open_regular(log) as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 4096))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    last = "".join(c if c.isprintable() else "?" for c in lines[-1])[:limit]
    return f"; its log ends: {last} (all of it: {log})"


def collect(course: Path, results: Path):
    """Finished units' reports by student and assignment, their notebooks copied under executed/; the failures
    (student, assignment or '*', reason); and the practice submissions that have no score (student, assignment)."""
    reports: dict[str, dict[str, Report]] = {}
    failed: list[tuple[str, str, str]] = []
    unscored: list[tuple[str, str]] = []
    # Only what this record step checked is staged: nbgrader must never re-record a notebook whose report
    # is missing (it would score the kernel's cells).
    shutil.rmtree(course / "executed", ignore_errors=True)
    for unit in sorted(p for p in results.iterdir() if p.is_dir() and not p.name.startswith(".")):
        student = unit.name
        if not (unit / RESULT).exists():
            failed.append((student, "*", "the grading of this student did not finish (no result.json): regrade"))
            continue
        rows = json.loads((unit / RESULT).read_text()).get("assignments", {})
        unscored += [(student, a) for a, row in sorted(rows.items()) if row.get("scored") is False]
        for report_path in sorted((unit / "reports").glob("*.json")):
            assignment = report_path.stem
            notebook = unit / "autograded" / assignment / f"{assignment}.ipynb"
            why = (f"the feedback run returned no notebook{log_ending(unit, assignment)}" if not notebook.exists()
                   else unreadable_reason(notebook))
            try:
                report = Report.from_json(report_path.read_text())
            except (ValueError, TypeError, KeyError) as err:
                why = why or f"unreadable report: {err}"
            if why:
                failed.append((student, assignment, why))
                continue
            target = course / "executed" / student / assignment
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(unit / "autograded" / assignment, target)
            stamp = course / "submitted" / student / assignment / "timestamp.txt"
            if os.path.lexists(stamp):
                when = readable_timestamp(stamp)
                if when:
                    (target / "timestamp.txt").write_text(when)
                else:  # nbgrader would fail on it (a red team's "not a date" stopped the whole record step)
                    print(f"IGNORED {stamp}: not a regular file holding a time nbgrader can read (recorded without "
                          "a timestamp)")
            reports.setdefault(student, {})[assignment] = report
    return reports, failed, unscored


def readable_timestamp(path: Path) -> str:
    """The submission time in ``path`` if nbgrader can read it, else ''. A student's folder may hold anything
    there: a link (to /dev/zero, copied without end; to a FIFO, a read that never returns), or text that is no
    time at all; so it is read as a regular file only, never through a link, and at most 200 bytes of it."""
    from nbgrader.utils import parse_utc

    try:
        with open_regular(path) as f:
            text = f.read(200).decode().strip()
        parse_utc(text)
        return text
    except Exception:  # a link, not a file, dateutil's ParserError, ValueError, OverflowError, UnicodeDecodeError
        return ""


FAILED_LINE = re.compile(r"There was an error processing assignment '([^']*)' for student '([^']*)'")


def nbgrader_record(course: Path, staged: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """nbgrader's own `autograde --no-execute` over every staged notebook (``staged``: assignment -> students), in
    one nbgrader process for the whole class (its time is ~0.14 s per notebook, not its start-up: one process per
    assignment measured the same, record_bench); locked test cells restored, nothing run. Returns the (student,
    assignment) pairs it could not record, with why. One student's notebook that nbgrader cannot process (one its
    sandboxed feedback run rewrote, say) costs only that student's feedback notebook: the others are recorded, and
    every score is set from the trusted reports afterwards all the same."""
    if not staged:
        return {}
    cmd, env = nbgrader_command(course, "autograde", "*", "--no-execute", "--force", "--create",
                                "--CourseDirectory.submitted_directory=executed")
    proc = subprocess.run(cmd, cwd=course, env=env, capture_output=True, text=True)
    if proc.returncode == 0:
        return {}
    text = proc.stdout + proc.stderr
    errors = [line.strip() for line in text.splitlines() if "Error" in line and "There was an error" not in line]
    why = "nbgrader could not record the executed notebook (" + (errors[-1][:300] if errors else
                                                                 f"exit {proc.returncode}") + ")"
    named = {(s, a) for a, s in FAILED_LINE.findall(text)}
    return {pair: why for pair in (named or {(s, a) for a, students in staged.items() for s in students})}


def apply_reports(course: Path, reports: dict[str, dict[str, Report]]) -> tuple[list[str], list[tuple[str, str, str]]]:
    """Set each graded cell's auto_score from the trusted report; return the disagreements with the kernel, and the
    reports that found no submission in the gradebook to score (student, assignment, why)."""
    from nbgrader.api import Gradebook, MissingEntry

    notes, missing = [], []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student, by_assignment in reports.items():
            for assignment, report in by_assignment.items():
                checks = {c.id: c for c in EXERCISES[assignment].checks}
                try:
                    submission = gb.find_submission(assignment, student)
                except MissingEntry:
                    missing.append((student, assignment, "no submission in the gradebook to score: nothing recorded"))
                    continue
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.name not in checks:
                            continue
                        score = report.cell_score(checks[grade.name])
                        if grade.auto_score is not None and abs(grade.auto_score - score) > 1e-9:
                            notes.append(f"{student}/{assignment}/{grade.name}: the notebook's cell scored "
                                         f"{grade.auto_score:g}, the trusted grading {score:g} (recorded)")
                        grade.auto_score = score
        gb.db.commit()
    return notes, missing


def record(course: Path, results: Path) -> dict:
    """Record every finished unit under ``results`` into ``course``'s gradebook (see the module docstring)."""
    reports, failed, unscored = collect(course, results)
    staged = {a: sorted(s for s, by in reports.items() if a in by) for a in sorted({a for by in reports.values()
                                                                                   for a in by})}
    for (student, assignment), why in sorted(nbgrader_record(course, staged).items()):
        failed.append((student, assignment, why + "; its scores are the trusted report's where the gradebook has the "
                       "submission"))
    notes, missing = apply_reports(course, reports)  # always: no score the kernel printed stays in the gradebook
    failed += missing
    out = course / "autograded"
    out.mkdir(exist_ok=True)
    with (out / FAILED_CSV).open("w", newline="") as f:
        csv.writer(f).writerows([("student", "assignment", "reason")] + failed)
    for line in notes:
        print(line)
    for student, assignment, why in failed:
        print(f"NOT RECORDED {student}/{assignment}: {why}")
    for student, assignment in unscored:
        print(f"NOT SCORED {student}/{assignment}: practice, no trusted grading (its executed notebook: "
              f"{results / student / 'autograded' / assignment})")
    return {"recorded": {s: sorted(by) for s, by in reports.items()}, "failed": failed, "disagreements": notes,
            "unscored": unscored}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.record", description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path, required=True)
    parser.add_argument("--results", type=Path, required=True)
    args = parser.parse_args(argv)
    summary = record(args.course.resolve(), args.results.resolve())
    print(json.dumps({k: v for k, v in summary.items() if k != "disagreements"}, indent=1))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
