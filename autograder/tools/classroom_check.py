"""A class graded on a GPU host the way an instructor grades one (`make autograde WORKERS=N`), with students
whose verdicts are known: the reference of every exercise, the untouched stubs, a wrong approach, a cheat and an
honest alternative per exercise (each a case of ``autograder/exercises/*/cases/``, pasted into the solution
notebook as the cell after the last solution cell), and a file that is not a notebook. Checks that every recorded
score is the trusted report's and every case got the verdict its header promises; writes the per-notebook times,
each unit's and the record step's time.

    python -m autograder.tools.classroom_check --workers 2 --out DIR
    python -m autograder.tools.classroom_check --workers 4 --class-size 24 --out DIR   # six per GPU (issue 41)

Writes DIR/classroom.json (the ``classroom`` section of benchmarks/gpu-results.json), DIR/grades.csv and
DIR/timings.csv, and exits 1 when a score or verdict is not what it must be.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

from autograder.core.protocol import Report
from autograder.exercises import EXERCISES
from autograder.tools import cases as case_files
from autograder.tools import classroom
from autograder.tools.grade_student import RESULT
from autograder.tools.paths import REPO

# student -> what each submits: "reference", "untouched", or a case name of that exercise
CLASS = {
    "alice": {ex: "reference" for ex in EXERCISES},
    "carol": {ex: "untouched" for ex in EXERCISES},
    "bob": {"01_eager_mode": "eager", "02_compile_pipeline": "aot_eager", "03_compile_modes": "default_mode",
            "04_graph_breaks": "original", "05_dynamic_shapes": "naive", "06_cuda_graphs": "no_copy"},
    "eve": {"01_eager_mode": "patch_perf_counter", "02_compile_pipeline": "lr_zero", "03_compile_modes": "ring_outputs",
            "04_graph_breaks": "patch_compile", "05_dynamic_shapes": "sleep_hides_compiles",
            "06_cuda_graphs": "ring_outputs"},
    "dave": {"01_eager_mode": "max_autotune_no_cudagraphs", "02_compile_pipeline": "regional",
             "03_compile_modes": "graphed_callables", "04_graph_breaks": "torch_cond",
             "05_dynamic_shapes": "mark_dynamic", "06_cuda_graphs": "graphed_callables"},
    "frank": {ex: "unreadable" for ex in EXERCISES},  # a file that is not a notebook, for every assignment
}
BROKEN = '{"cells": [ this is not a notebook'


def roster(size: int | None = None, only: list[str] | None = None) -> dict[str, str]:
    """Student -> the profile of CLASS they hand in. ``size``: a class of that many, the profiles dealt in turn
    (alice1, bob1, ..., frank1, alice2, ...); else one student per profile (``only``: these)."""
    profiles = sorted(CLASS)
    if size is None:
        return {name: name for name in (only or profiles)}
    return {f"{profiles[i % len(profiles)]}{i // len(profiles) + 1}": profiles[i % len(profiles)]
            for i in range(size)}


def submission(exercise_id: str, what: str) -> str:
    """The notebook a student of CLASS hands in for this exercise, as JSON."""
    if what == "untouched":
        return (REPO / "exercises" / exercise_id / f"{exercise_id}.ipynb").read_text()
    if what == "unreadable":
        return BROKEN
    nb = json.loads((REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb").read_text())
    if what != "reference":
        code = case(exercise_id, what).path.read_text()
        last = max(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("solution"))
        nb["cells"].insert(last + 1, {"cell_type": "code", "execution_count": None, "id": f"case-{what}",
                                      "metadata": {}, "outputs": [], "source": code})
    return json.dumps(nb)


def case(exercise_id: str, name: str):
    return next(c for c in case_files.cases(exercise_id) if c.name == name)


def expected(exercise_id: str, what: str) -> str:
    if what in ("reference", "untouched", "unreadable"):
        return {"reference": "full marks", "untouched": "0 points", "unreadable": "0 points"}[what]
    c = case(exercise_id, what)
    return f"{c.kind} {what}: {c.outcome}"


def judge(exercise_id: str, what: str, report: Report | None, recorded: dict[str, float]) -> list[str]:
    """What is wrong with one graded notebook: scores in the gradebook other than the trusted report's, and a
    verdict other than the one its kind promises. Empty when all is as it must be."""
    if what == "unreadable":  # nothing to grade: every check recorded as 0, with or without a report
        return [f"the unreadable file scored {sum(recorded.values())}"] if sum(recorded.values()) else []
    if report is None:
        return [f"no trusted report for {exercise_id}"]
    exercise = EXERCISES[exercise_id]
    problems = [f"{c.id}: gradebook {recorded.get(c.id)} but the trusted report gives {report.cell_score(c)}"
                for c in exercise.checks if recorded.get(c.id) != report.cell_score(c)]
    total, full = sum(recorded.values()), sum(c.points for c in exercise.checks)
    if what == "reference" and total != full:
        problems.append(f"the reference scored {total}/{full}")
    elif what == "untouched" and total != 0:
        problems.append(f"the untouched stub scored {total}/{full}")
    elif what not in ("reference", "untouched"):
        ok, why = case_files.verdict(case(exercise_id, what), report, cuda=report.environment.get("gpu") is not None)
        if not ok:
            problems.append(f"case {what}: {why}")
    return problems


def run(workers: int, out: Path, students: dict[str, str], exercises: list[str]) -> int:
    """``students``: name -> profile of CLASS (``roster``)."""
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("COURSE_GRADING_SECRET", secrets.token_hex(16))  # this check's own class
    with tempfile.TemporaryDirectory(prefix="classroom-check-") as tmp:
        course = Path(tmp) / "course"
        course.mkdir()
        shutil.copy(REPO / "nbgrader_config.py", course)
        for ex in exercises:
            shutil.copytree(REPO / "solutions" / ex, course / "solutions" / ex)
        classroom.release(course)
        for student in students:
            for ex in exercises:
                folder = course / "submitted" / student / ex
                folder.mkdir(parents=True)
                (folder / f"{ex}.ipynb").write_text(submission(ex, CLASS[students[student]][ex]))
        results = course / "results"
        summary = classroom.autograde(course, workers=workers, results=results)
        units_s, record_s = summary["units_s"], summary["record_s"]
        shutil.copy(classroom.grades(course), out / "grades.csv")
        with (out / "grades.csv").open() as f:
            rows = list(csv.DictReader(f))
        scores, submissions, problems, unit_rows = [], [], [], []
        for student in students:
            done = results / student / RESULT
            unit = json.loads(done.read_text()) if done.exists() else {}
            rows_of = unit.get("assignments", {})
            unit_rows.append({"student": student, "profile": students[student], "unit_s": unit.get("seconds")})
            for ex in exercises:
                what = CLASS[students[student]][ex]
                recorded = {r["check"]: float(r["score"]) for r in rows
                            if (r["student"], r["assignment"]) == (student, ex)}
                path = results / student / "reports" / f"{ex}.json"
                report = Report.from_json(path.read_text()) if path.exists() else None
                problems += [f"{student} {ex}: {p}" for p in judge(ex, what, report, recorded)]
                scores.append({"student": student, "profile": students[student], "assignment": ex,
                               "score": sum(recorded.values()),
                               "max": float(sum(c.points for c in EXERCISES[ex].checks)),
                               "expected": expected(ex, what)})
                row = rows_of.get(ex, {})
                submissions.append({"run": "A", "student": student, "assignment": ex,
                                    "notebook_s": row.get("seconds"), "grading_s": row.get("grading_s"),
                                    "judge_s": row.get("judge_s"), "startup_s": row.get("startup_s"),
                                    "feedback_s": row.get("feedback_s")})
    gpu = _gpu() or "no GPU"
    section = {
        "how": f"python -m autograder.tools.classroom_check --workers {workers}: {len(students)} students x "
               f"{len(exercises)} exercises through make autograde's path (one unit per student, {workers} at a time, "
               f"then one record step), on {gpu}",
        "timing": f"units {units_s:.0f} s wall for {len(students)} students ({workers} at a time); record step "
                  f"{record_s:.1f} s; failed units: {len(summary.get('failed', []))}",
        "scores": scores, "submissions": submissions, "units": unit_rows, "problems": problems,
        "units_s": round(units_s, 1), "record_s": round(record_s, 1), "workers": workers}
    (out / "classroom.json").write_text(json.dumps(section, indent=1) + "\n")
    with (out / "timings.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        # notebook_s: the assignment's steps; grading_s: the report's; judge_s: the judge process's (start-up
        # included); startup_s: the judge's life before it graded; feedback_s: its feedback run (which ran beside the
        # unit's other feedback runs)
        columns = ["student", "assignment", "notebook_s", "grading_s", "judge_s", "startup_s", "feedback_s"]
        writer.writerow(columns)
        writer.writerows([[s[c] for c in columns] for s in submissions])
    print(section["how"] + "\n" + section["timing"])
    for line in problems:
        print(f"PROBLEM: {line}")
    return 1 if problems else 0


def _gpu() -> str | None:
    import torch

    return torch.cuda.get_device_name() if torch.cuda.is_available() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.classroom_check",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="students graded at a time (one per GPU)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--student", action="append", choices=sorted(CLASS), help="only these students")
    parser.add_argument("--class-size", type=int, metavar="N",
                        help="a class of N students, the profiles dealt in turn (alice1, bob1, ..., alice2, ...)")
    parser.add_argument("--exercise", action="append", choices=sorted(EXERCISES), help="only these exercises")
    args = parser.parse_args(argv)
    return run(args.workers, args.out, roster(args.class_size, args.student), args.exercise or sorted(EXERCISES))


if __name__ == "__main__":
    sys.exit(main())
