"""Command line (a stable contract; outside tools rely on it):

    python -m autograder list
    python -m autograder grade EXERCISE PATH [--json FILE] [--timeout S] [--allow-skip] [--hidden]

`grade` grades a notebook, or a .py file that defines the entry points: the submission runs in a fresh worker
process with a time limit, and this process — which runs none of it — times, verifies and decides. It prints
one line per check and exits 0 only if every check passed. Input it cannot grade at all (a missing file, not a
.ipynb or .py file, a notebook that is not readable, an unknown exercise) is refused before any grading starts:
one line on stderr and exit code 2. The exit codes are in EPILOG (`python -m autograder --help`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PASSED, FAILED, UNUSABLE = 0, 1, 2  # exit codes; argparse also exits 2 for a usage error

EPILOG = """\
exit codes:
  0  every check passed (with --allow-skip, a check skipped for want of a GPU counts as passed, as long as
     at least one check ran and passed here)
  1  at least one check failed or was inconclusive (each check's line says why)
  2  nothing was graded: the file is missing, is not a .ipynb notebook or a .py file, or is not a readable
     notebook; the exercise id is unknown; the --json folder does not exist. One line on stderr says
     which. A wrong command line also exits 2, with argparse's usage line and error.
A crash of the grader itself ends with a Python traceback (exit 1) and writes no report.

The warm-up, 00_warmup, is not graded by this command: the test cells in its notebook check it (Run All),
and nbgrader scores them. `list` prints the exercises `grade` knows.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description="grade torch.compile exercises",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print each exercise id and its entry points")
    grade = sub.add_parser("grade", help="grade a notebook or .py file", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    grade.add_argument("exercise", help="an exercise id, as `python -m autograder list` prints it")
    grade.add_argument("path", type=Path, help="the notebook (.ipynb) or .py file to grade")
    grade.add_argument("--json", type=Path, help="also write the full report as JSON here")
    grade.add_argument("--timeout", type=float, default=None,
                       help="seconds for the whole grading (default 600; 1800 for a submission that asks for "
                            "max-autotune, whose search takes minutes on cold caches)")
    grade.add_argument("--allow-skip", action="store_true",
                       help="a speed check that needs a GPU may be skipped on a CPU (CI only)")
    grade.add_argument("--hidden", action="store_true",
                       help="also grade nbgrader's hidden tests (on a second secret input stream) into the JSON")
    return parser


def unusable_input(path: Path, exercise_id: str) -> str:
    """Why the file at ``path`` cannot be graded at all, in one line; '' if it can. Cheap: it reads the file and
    imports neither torch nor the grader."""
    if not path.exists():
        return f"{path} does not exist"
    if path.is_dir():
        return f"{path} is a folder: give the notebook (.ipynb) or .py file to grade"
    if path.suffix == ".py":
        try:
            path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            return f"{path} cannot be read as Python source ({type(err).__name__}: {_one_line(err)})"
        return ""
    if path.suffix != ".ipynb":
        return f"{path}: expected a .ipynb notebook or a .py file"
    from autograder.tools.notebooks import unreadable_reason
    from autograder.tools.paths import REPO, student_version

    reason = unreadable_reason(path)
    if not reason:
        return ""
    released = student_version(exercise_id)
    where = f"; the exercise as released is {released.relative_to(REPO)}" if released.is_file() else ""
    return f"{path} is not a readable Jupyter notebook ({reason}){where}"


def unknown_exercise(exercise_id: str, known: list[str]) -> str:
    from autograder.tools.paths import SOLUTIONS

    if (SOLUTIONS / exercise_id).is_dir():
        return (f"{exercise_id} is not graded by this command: the test cells in its notebook check it (Run All), "
                f"and nbgrader scores them; this command grades {', '.join(known)}")
    return f"unknown exercise {exercise_id!r}; known: {', '.join(known)}"


def _one_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0][:300] if text else ""


def _refuse(message: str) -> int:
    print(f"python -m autograder grade: error: {message}", file=sys.stderr)
    return UNUSABLE


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    if args.command == "list":
        from autograder.exercises import EXERCISES

        for exercise in EXERCISES.values():
            print(f"{exercise.id}\t{' '.join(exercise.entry_points)}")
        return PASSED

    # Refuse what cannot be graded before importing the grader (and torch), let alone starting a worker.
    problem = unusable_input(args.path, args.exercise)
    if not problem and args.json and not args.json.parent.is_dir():
        problem = f"cannot write the report to {args.json}: the folder {args.json.parent} does not exist"
    if not problem and args.json and args.json.is_dir():
        problem = f"cannot write the report to {args.json}: it is a folder"
    if problem:
        return _refuse(problem)
    from autograder.exercises import EXERCISES

    if args.exercise not in EXERCISES:
        return _refuse(unknown_exercise(args.exercise, list(EXERCISES)))

    from autograder.core import sandbox
    from autograder.core.grading import Policy, default_device, grade_file, isolate_judge_caches, warm_judge
    from autograder.core.protocol import visible

    try:
        sandbox.preflight()  # the grader's own setup, checked before a submission could be blamed for it
    except sandbox.SandboxUnavailable as err:
        return _refuse(str(err))

    if default_device().type == "cuda":  # where speed is graded; on a CPU a fresh cache costs a 20 s probe
        isolate_judge_caches()
    exercise = EXERCISES[args.exercise]
    if exercise.judge_compiles:
        warm_judge(default_device())
    report = grade_file(exercise, args.path, hidden=args.hidden,
                        policy=Policy(allow_skip=args.allow_skip, timeout=args.timeout))
    for line in report.lines():
        print(line)
    for r in report.results:
        if r.status in ("failed", "inconclusive") and r.hint:
            print(visible(f"    hint ({r.id}): {r.hint}"))
    if args.json:
        args.json.write_text(report.to_json())
    if report.ok() and all(r.status == "skipped" for r in report.results):  # --allow-skip, and nothing ran here
        print("nothing was verified on this machine: every check needs a GPU (exit 1)")
        return FAILED
    return PASSED if report.ok() else FAILED


if __name__ == "__main__":
    sys.exit(main())
