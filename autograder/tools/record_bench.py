"""The record step at class size, on any machine (no GPU: recording runs nothing of the students'):

    python -m autograder.tools.record_bench --students 24 [--out benchmarks/record-step.json]

A released course and a results folder as grading units leave them (every student, every exercise: a report and
the executed notebook, here the solution notebook with a report of full points), then
:func:`autograder.tools.record.record` timed, and every score in the gradebook compared with the reports. Issue 41
asks for at most 1 s per student at class size.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from autograder.core.protocol import PASSED, CheckResult, Report
from autograder.exercises import EXERCISES
from autograder.tools.grade_student import RESULT
from autograder.tools.paths import REPO


def fake_unit(course: Path, results: Path, student: str) -> None:
    """``results/student`` as a unit that graded every exercise leaves it: full points, the notebook as executed."""
    unit = results / student
    (unit / "reports").mkdir(parents=True)
    rows = {}
    for exercise_id, exercise in EXERCISES.items():
        def passed(checks):
            return [CheckResult(c.id, c.title, c.kind, float(c.points), c.points, PASSED, "ok") for c in checks]

        report = Report(exercise_id, passed(exercise.checks), {}, 1.0)
        report.hidden = passed(c for c in exercise.checks if c.hidden)
        (unit / "reports" / f"{exercise_id}.json").write_text(report.to_json())
        (unit / "autograded" / exercise_id).mkdir(parents=True)
        shutil.copy(course / "solutions" / exercise_id / f"{exercise_id}.ipynb",
                    unit / "autograded" / exercise_id / f"{exercise_id}.ipynb")
        submitted = course / "submitted" / student / exercise_id
        submitted.mkdir(parents=True)
        shutil.copy(course / "exercises" / exercise_id / f"{exercise_id}.ipynb", submitted)
        rows[exercise_id] = {"points": report.points, "max_points": report.max_points}
    (unit / RESULT).write_text(json.dumps({"student": student, "assignments": rows}))


def measure(students: int) -> dict:
    from nbgrader.api import Gradebook

    from autograder.tools import classroom, record

    with tempfile.TemporaryDirectory(prefix="record-bench-") as tmp:
        course, results = Path(tmp) / "course", Path(tmp) / "results"
        course.mkdir()
        shutil.copy(REPO / "nbgrader_config.py", course)
        for exercise_id in EXERCISES:
            shutil.copytree(REPO / "solutions" / exercise_id, course / "solutions" / exercise_id)
        classroom.release(course)
        names = [f"student{i:03d}" for i in range(students)]
        for name in names:
            fake_unit(course, results, name)
        start = time.perf_counter()
        summary = record.record(course, results)
        seconds = time.perf_counter() - start
        wrong = []
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
            for name in names:
                for exercise_id, exercise in EXERCISES.items():
                    got = gb.find_submission(exercise_id, name).score
                    if abs(got - sum(c.points for c in exercise.checks)) > 1e-9:
                        wrong.append(f"{name}/{exercise_id}: {got}")
    return {"students": students, "exercises": len(EXERCISES), "record_s": round(seconds, 1),
            "per_student_s": round(seconds / students, 2), "failed": summary["failed"], "wrong_scores": wrong,
            "python": sys.version.split()[0], "machine": platform.processor() or platform.machine()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.record_bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=24)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    result = measure(args.students)
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 1 if result["failed"] or result["wrong_scores"] else 0


if __name__ == "__main__":
    sys.exit(main())
