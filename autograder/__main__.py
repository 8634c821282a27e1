"""Command line (a stable contract; outside tools rely on it):

    python -m autograder list
    python -m autograder grade EXERCISE PATH [--json FILE] [--timeout S] [--allow-skip] [--hidden]

`grade` grades a notebook, or a .py file that defines the entry points: the submission runs in a fresh worker
process with a time limit, and this process — which runs none of it — times, verifies and decides. It prints
one line per check and exits 0 only if every check passed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder.exercises import EXERCISES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description="grade torch.compile exercises")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print each exercise id and its entry points")
    grade = sub.add_parser("grade", help="grade a notebook or .py file")
    grade.add_argument("exercise", choices=sorted(EXERCISES))
    grade.add_argument("path", type=Path)
    grade.add_argument("--json", type=Path, help="also write the full report as JSON here")
    grade.add_argument("--timeout", type=float, default=600, help="seconds for the whole grading (default 600)")
    grade.add_argument("--allow-skip", action="store_true",
                       help="a speed check that needs a GPU may be skipped on a CPU (CI only)")
    grade.add_argument("--hidden", action="store_true",
                       help="also grade nbgrader's hidden tests (on a second secret input stream) into the JSON")
    args = parser.parse_args(argv)

    if args.command == "list":
        for exercise in EXERCISES.values():
            print(f"{exercise.id}\t{' '.join(exercise.entry_points)}")
        return 0

    from autograder.core.grading import Policy, default_device, grade_file, isolate_judge_caches, warm_judge

    if default_device().type == "cuda":  # where speed is graded; on a CPU a fresh cache costs a 20 s probe
        isolate_judge_caches()
    warm_judge(default_device())
    report = grade_file(EXERCISES[args.exercise], args.path, hidden=args.hidden,
                        policy=Policy(allow_skip=args.allow_skip, timeout=args.timeout))
    for line in report.lines():
        print(line)
    for r in report.results:
        if r.status in ("failed", "inconclusive") and r.hint:
            print(f"    hint ({r.id}): {r.hint}")
    if args.json:
        args.json.write_text(report.to_json())
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
