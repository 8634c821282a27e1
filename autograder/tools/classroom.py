"""Instructor commands: thin wrappers over nbgrader's own command line and its SQLite gradebook.

    python -m autograder.tools.classroom release|autograde|feedback|grades [--course DIR]

* ``release``   nbgrader generate_assignment for every assignment in solutions/ into exercises/, recorded in
                the course's gradebook (gradebook.db), then stripped as committed;
* ``autograde`` one grading unit per student in submitted/ (tools.grade_student: the trusted report, then a
                sandboxed feedback run), ``--workers`` at a time (one per GPU), then the one writer
                (tools.record) records them, scores from the trusted reports; unknown students are added;
                ``--runner ray``: the units are Ray tasks, one GPU each (tools.ray_runner; the Slurm path is
                tools.slurm);
* ``feedback``  nbgrader generate_feedback: one HTML file per student and assignment under feedback/;
* ``grades``    grades.csv with one row per student, assignment and check (score, max score, and a note where a
                check was not graded: skipped for want of a GPU scores 0, never points).

``autograde --student ID`` regrades one student (repeatable) through the same trusted unit, then records.

The grading secret comes from ``COURSE_GRADING_SECRET``; time limits from ``COURSE_CELL_TIMEOUT`` (per cell)
and ``COURSE_SUBMISSION_TIMEOUT`` (per isolated grading of a submission).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import time
from pathlib import Path

from autograder.core import sandbox
from autograder.tools.grade_student import QUARANTINED, RESULT, feedback_preflight, run_unit, unit_timeout
from autograder.tools.notebooks import cap_outputs, unreadable_reason
from autograder.tools.paths import REPO
from autograder.tools.record import record
from autograder.tools.release import generate, run_nbgrader
from autograder.tools.slots import run_in_slots, slots

RUNNERS = ("local", "ray")  # autograde's fan-out: slots on this host (fan_out), or Ray tasks (tools.ray_runner)


def submitted_assignments(course: Path) -> list[str]:
    """Assignments that at least one student has submitted (submitted/<student>/<assignment>/)."""
    return sorted({p.name for p in (course / "submitted").glob("*/*") if p.is_dir()})


def release(course: Path) -> list[Path]:
    return generate(course / "exercises", db_url=f"sqlite:///{course / 'gradebook.db'}", course=course)


def quarantine_unreadable(course: Path) -> list[Path]:
    """A submitted file that is not a readable notebook cannot be autograded: keep it as ``*.unreadable`` and
    put the released student version in its place, with a first cell that says why. It then scores 0 on every
    check, and the student's feedback carries the message."""
    import nbformat

    replaced = []
    for path in sorted((course / "submitted").glob("*/*/*.ipynb")):
        reason = unreadable_reason(path)
        if not reason:
            continue
        released = course / "exercises" / path.parent.name / path.name
        kept = path.with_name(path.name + ".unreadable")
        path.replace(kept)
        nb = nbformat.read(released, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(
            f"**This submission could not be graded.** The file submitted as `{path.name}` is not a readable "
            f"Jupyter notebook ({reason}). Every check scores 0. The file was kept as `{kept.name}`; ask your "
            "instructor to regrade once a readable notebook is submitted."))
        nb.metadata[QUARANTINED] = reason  # the unit scores it 0 without a judge (grade_student.not_gradable)
        nbformat.write(nb, path)
        replaced.append(path)
    return replaced


def autograde(course: Path, workers: int = 1, results: Path | None = None, runner: str = "local",
              only: list[str] | None = None) -> dict:
    """Grade every student in submitted/ (one unit per student, ``workers`` at a time, each on its own GPU and
    cores where there are several; with ``runner="ray"``, one Ray task per student, one GPU each), then record
    them all into the gradebook with the one writer. Each unit's wall time is printed and written to
    autograded/timings.csv; the returned summary (record's) adds the wall time of all units and of recording."""
    if runner not in RUNNERS:
        raise ValueError(f"runner {runner!r}: use one of {', '.join(RUNNERS)}")
    sandbox.preflight()  # a sandbox that cannot start Python fails here, the grader's problem, not as 0 points each
    feedback_preflight()  # likewise a feedback run that cannot start nbgrader or a kernel
    for path in quarantine_unreadable(course):
        print(f"unreadable submission replaced by a zero-scoring notebook with a message: {path}")
    results = results or course / "results"
    results.mkdir(exist_ok=True)
    students = sorted(p.name for p in (course / "submitted").iterdir() if p.is_dir())
    if only:  # a regrade: these students' units afresh; recording then applies every finished unit again
        unknown = sorted(set(only) - set(students))
        if unknown:
            raise ValueError(f"no submission folder under submitted/ for {', '.join(unknown)}")
        students = sorted(set(only))
    start = time.perf_counter()
    if runner == "ray":
        from autograder.tools import ray_runner

        for student, path in ray_runner.fan_out(course, students, results, workers).items():
            if path is None:
                mark_unfinished(results, student)
    else:
        for student in fan_out(course, students, results, workers):
            mark_unfinished(results, student)  # reported in failed.csv, not an earlier run's result recorded
    units_s, start = time.perf_counter() - start, time.perf_counter()
    summary = record(course, results)
    summary.update(units_s=round(units_s, 1), record_s=round(time.perf_counter() - start, 1))
    timings = []
    for student in students:
        done = results / student / RESULT
        if done.exists():
            for name, row in json.loads(done.read_text())["assignments"].items():
                timings.append((student, name, row["seconds"]))
    out = course / "autograded" / "timings.csv"
    with out.open("w", newline="") as f:
        csv.writer(f).writerows([("student", "assignment", "seconds")] + timings)
    print(f"{len(students)} students, {f'{workers} at a time' if runner == 'local' else 'one Ray task each'}; "
          f"timings in {out}")
    return summary


def mark_unfinished(results: Path, student: str) -> None:
    """Leave ``results/<student>`` as a unit that did not finish (a folder without result.json): the record step
    then lists the student in failed.csv and records nothing of theirs. An earlier run's unit found there is
    kept aside as ``results/.<student>.stale``, so that it is not recorded as this run's."""
    unit = results / student
    if unit.exists():
        stale = results / f".{student}.stale"
        shutil.rmtree(stale, ignore_errors=True)
        unit.rename(stale)
    unit.mkdir(parents=True)


def fan_out(course: Path, students: list[str], results: Path, workers: int, retries: int = 1) -> list[str]:
    """Run one grading unit per student, ``workers`` at a time; a unit that ends without its result (killed, a
    lost node) is run again up to ``retries`` times. Returns the students whose unit never finished."""
    def unit(student: str, slot: dict) -> bool:
        try:
            return attempts(student, slot)
        except Exception as err:  # noqa: BLE001 - one student's files must not stop the class: they go to failed.csv
            print(f"[{student}] the unit could not start: {type(err).__name__}: {err}", flush=True)
            return False

    def attempts(student: str, slot: dict) -> bool:
        for attempt in range(retries + 1):
            start = time.perf_counter()
            cmd = [sys.executable, "-m", "autograder.tools.grade_student", "--course", str(course),
                   "--student", student, "--results", str(results)]
            code, out, err = run_unit(cmd, env={**os.environ, **slot["env"]}, timeout=unit_timeout(course, student),
                                      preexec_fn=lambda: os.sched_setaffinity(0, slot["cores"]), name=student)
            print(f"[{student}] {out.strip()} ({time.perf_counter() - start:.1f} s, cores "
                  f"{slot['cores'][0]}-{slot['cores'][-1]})", flush=True)
            if code == 0 and (results / student / RESULT).exists():
                return True
            print(f"[{student}] attempt {attempt + 1} ended without a result (exit {code}): "
                  f"{err.strip()[-500:]}", flush=True)
            if code == "timeout":  # it would only run out of time again
                break
        return False

    finished = run_in_slots(slots(workers), students, unit)
    return [s for s, done in zip(students, finished, strict=True) if not done]


FEEDBACK_FAILED_CSV = "feedback-failed.csv"


def feedback(course: Path) -> list[Path]:
    """Feedback HTML for every recorded assignment (a practice one, never scored, keeps its executed notebook in
    results/<student>/autograded/ instead). One student's notebook that nbgrader cannot render costs that student's
    page only: every other page is made, and ``autograded/feedback-failed.csv`` lists the pages not made, with
    nbgrader's last words (the command then exits 1). Outputs longer than notebooks.OUTPUT_CAP are cut first."""
    failed = []
    for name in submitted_assignments(course):
        recorded = sorted((course / "autograded").glob(f"*/{name}/{name}.ipynb"))
        if not recorded:
            continue
        for notebook in recorded:
            cap_outputs(notebook)
        start = time.time()
        try:
            run_nbgrader(course, "generate_feedback", name, "--force")
            why = ""
        except RuntimeError as err:  # nbgrader goes on past a student it cannot render, then exits 1
            why = " ".join(str(err).split())[-300:]
        for notebook in recorded:
            student = notebook.parent.parent.name
            page = course / "feedback" / student / name / f"{name}.html"
            if not page.exists() or page.stat().st_mtime < start - 1:
                failed.append((student, name, why or "nbgrader made no page"))
    report = course / "autograded" / FEEDBACK_FAILED_CSV
    report.unlink(missing_ok=True)
    if failed:
        with report.open("w", newline="") as f:
            csv.writer(f).writerows([("student", "assignment", "why"), *failed])
        for student, name, _ in failed:
            print(f"FEEDBACK NOT MADE: {student}/{name} (autograded/{FEEDBACK_FAILED_CSV} says why)", file=sys.stderr)
    return sorted((course / "feedback").glob("*/*/*.html"))


def not_graded(course: Path, student: str, assignment: str) -> dict[str, str]:
    """check id -> why it was not graded (a check skipped for want of a GPU), from the student's trusted report."""
    from autograder.core.protocol import SKIPPED, Report

    path = course / "results" / student / "reports" / f"{assignment}.json"
    try:
        report = Report.from_json(path.read_text())
    except (OSError, ValueError, TypeError, KeyError):
        return {}
    return {r.id: "not graded: needs a GPU" if "GPU" in r.message else f"not graded: {r.message[:120]}"
            for r in report.results if r.status == SKIPPED}


TOTALS = "grades-totals.csv"


def grades(course: Path, out: Path | None = None) -> Path:
    """One row per student, assignment and graded check, from the gradebook; ``note`` says where a check was not
    graded (skipped for want of a GPU: its score is 0, never points). Beside it, ``grades-totals.csv``: each
    student's score per assignment and in all (an assignment not submitted counts 0 of its points), with the points
    not graded."""
    from nbgrader.api import Gradebook

    out = out or course / "grades.csv"
    totals: dict[str, dict[str, list]] = {}  # student -> assignment -> [score, max, points not graded]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb, out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "assignment", "check", "score", "max_score", "note"])
        assignments = {a.name: a.max_score for a in gb.assignments}
        for assignment in gb.assignments:
            for student in gb.students:
                row = totals.setdefault(student.id, {}).setdefault(assignment.name,
                                                                   [0.0, assignment.max_score, 0.0, "not submitted"])
                try:
                    submission = gb.find_submission(assignment.name, student.id)
                except Exception:  # nbgrader's MissingEntry: this student did not submit it
                    continue
                row[3] = ""
                notes = not_graded(course, student.id, assignment.name)
                for notebook in submission.notebooks:
                    for grade in sorted(notebook.grades, key=lambda g: g.name):
                        writer.writerow([student.id, assignment.name, grade.name, grade.score, grade.max_score,
                                         notes.get(grade.name, "")])
                        row[0] += grade.score or 0.0
                        row[2] += grade.max_score if grade.name in notes else 0.0
    with (out.parent / TOTALS).open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "assignment", "score", "max_score", "not_graded_points", "note"])
        for student, by in sorted(totals.items()):
            for name, (score, most, unseen, note) in sorted(by.items()):
                writer.writerow([student, name, f"{score:g}", f"{most:g}", f"{unseen:g}", note])
            writer.writerow([student, "all", f"{sum(r[0] for r in by.values()):g}",
                             f"{sum(assignments.values()):g}", f"{sum(r[2] for r in by.values()):g}", ""])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.classroom", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["release", "autograde", "feedback", "grades"])
    parser.add_argument("--course", type=Path, default=REPO)
    parser.add_argument("--workers", type=int, default=1, help="autograde: students graded at a time (one per GPU)")
    parser.add_argument("--runner", choices=RUNNERS, default="local",
                        help="autograde: local slots on this host, or Ray tasks (pip install -e '.[ray]')")
    parser.add_argument("--student", action="append", metavar="ID",
                        help="autograde: regrade only this student (repeatable), through the same trusted unit")
    args = parser.parse_args(argv)
    course = args.course.resolve()
    if args.command == "autograde":
        try:
            summary = autograde(course, workers=args.workers, runner=args.runner, only=args.student)
        except sandbox.SandboxUnavailable as err:
            print(f"GRADING DID NOT START: {err}", file=sys.stderr)
            return 2
        return 1 if summary["failed"] else 0
    result = {"release": release, "feedback": feedback, "grades": grades}[args.command](course)
    for item in result if isinstance(result, list) else [result]:
        print(item)
    return 1 if args.command == "feedback" and (course / "autograded" / FEEDBACK_FAILED_CSV).exists() else 0


if __name__ == "__main__":
    sys.exit(main())
