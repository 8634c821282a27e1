"""Instructor commands: thin wrappers over nbgrader's own command line and its SQLite gradebook.

    python -m autograder.tools.classroom release|autograde|feedback|grades [--course DIR]

* ``release``   nbgrader generate_assignment for every assignment in solutions/ into exercises/, recorded in
                the course's gradebook (gradebook.db), then stripped as committed;
* ``autograde`` nbgrader autograde for every assignment found under submitted/<student>/, one after the
                other (one GPU: submissions never share it); unknown students are added;
* ``feedback``  nbgrader generate_feedback: one HTML file per student and assignment under feedback/;
* ``grades``    grades.csv with one row per student, assignment and check (score and max score).

The grading secret comes from ``COURSE_GRADING_SECRET``; time limits from ``COURSE_CELL_TIMEOUT`` (per cell)
and ``COURSE_SUBMISSION_TIMEOUT`` (per isolated grading of a submission).
"""

from __future__ import annotations

import argparse
import csv
import re
import subprocess
import sys
import time
from pathlib import Path

from autograder.tools.paths import REPO
from autograder.tools.release import generate, nbgrader_command, run_nbgrader


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
        try:
            nbformat.validate(nbformat.read(path, as_version=4))
            continue
        except Exception as err:  # not JSON, not a notebook, or not a valid one
            reason = f"{type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}"
        released = course / "exercises" / path.parent.name / path.name
        kept = path.with_name(path.name + ".unreadable")
        path.replace(kept)
        nb = nbformat.read(released, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(
            f"**This submission could not be graded.** The file submitted as `{path.name}` is not a readable "
            f"Jupyter notebook ({reason}). Every check scores 0. The file was kept as `{kept.name}`; ask your "
            "instructor to regrade once a readable notebook is submitted."))
        nbformat.write(nb, path)
        replaced.append(path)
    return replaced


def autograde(course: Path) -> list[str]:
    """Autograde every submitted assignment, one nbgrader run per assignment; nbgrader's log streams through,
    and each submission's wall time is printed and written to autograded/timings.csv."""
    for path in quarantine_unreadable(course):
        print(f"unreadable submission replaced by a zero-scoring notebook with a message: {path}")
    done, timings = [], []
    for name in submitted_assignments(course):
        timings += _autograde_timed(course, name)
        done.append(name)
    if timings:
        out = course / "autograded" / "timings.csv"
        with out.open("w", newline="") as f:
            csv.writer(f).writerows([("student", "assignment", "seconds")] + timings)
        per_student: dict[str, float] = {}
        for student, _, seconds in timings:
            per_student[student] = per_student.get(student, 0.0) + seconds
        print("seconds per student (all their assignments): "
              + ", ".join(f"{s} {t:.0f}" for s, t in sorted(per_student.items())) + f"; written to {out}")
    return done


def _autograde_timed(course: Path, name: str) -> list[tuple[str, str, float]]:
    """``nbgrader autograde NAME`` with its log streamed; a submission's time runs from nbgrader's
    "Sanitizing" line for it to the next one (or to the end): the kernel, the isolated grading, the gradebook."""
    cmd, env = nbgrader_command(course, "autograde", name, "--create", "--force")
    proc = subprocess.Popen(cmd, cwd=course, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    timings, current, started, lines = [], None, 0.0, []
    pattern = re.compile(r"Sanitizing .*[/\\]submitted[/\\]([^/\\]+)[/\\]")
    for line in proc.stdout:
        print(line, end="", flush=True)
        lines.append(line)
        match = pattern.search(line)
        if match:
            now = time.perf_counter()
            if current:
                timings.append((current, name, round(now - started, 1)))
            current, started = match.group(1), now
    proc.wait()
    if current:
        timings.append((current, name, round(time.perf_counter() - started, 1)))
    for student, _, seconds in timings:
        print(f"autograded {student}/{name} in {seconds:.1f} s", flush=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader autograde {name} failed (exit {proc.returncode}):\n{''.join(lines[-40:])}")
    return timings


def feedback(course: Path) -> list[Path]:
    for name in submitted_assignments(course):
        run_nbgrader(course, "generate_feedback", name, "--force")
    return sorted((course / "feedback").glob("*/*/*.html"))


def grades(course: Path, out: Path | None = None) -> Path:
    """One row per student, assignment and graded check, from the gradebook."""
    from nbgrader.api import Gradebook

    out = out or course / "grades.csv"
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb, out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "assignment", "check", "score", "max_score"])
        for assignment in gb.assignments:
            for student in gb.students:
                try:
                    submission = gb.find_submission(assignment.name, student.id)
                except Exception:  # nbgrader's MissingEntry: this student did not submit it
                    continue
                for notebook in submission.notebooks:
                    for grade in sorted(notebook.grades, key=lambda g: g.name):
                        writer.writerow([student.id, assignment.name, grade.name, grade.score, grade.max_score])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.classroom", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["release", "autograde", "feedback", "grades"])
    parser.add_argument("--course", type=Path, default=REPO)
    args = parser.parse_args(argv)
    course = args.course.resolve()
    result = {"release": release, "autograde": autograde, "feedback": feedback, "grades": grades}[args.command](course)
    for item in result if isinstance(result, list) else [result]:
        print(item)
    return 0


if __name__ == "__main__":
    sys.exit(main())
