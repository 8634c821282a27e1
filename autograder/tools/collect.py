"""Submissions as a learning platform delivers them (one zip of files named by student) into ``submitted/``, by
nbgrader's own ``zip_collect``:

    python -m autograder.tools.collect --assignment 01_eager_mode --zip ~/Downloads/submissions.zip [--names canvas]

``--names`` says how the platform names each file: ``plain`` (``alice_01_eager_mode.ipynb``: the student id, an
underscore, the notebook's name), ``canvas`` (``doejane_12345_678901_01_eager_mode.ipynb``, a resubmission's
``-1`` dropped) or ``moodle`` (``Jane Doe_12345_assignsubmission_file_01_eager_mode.ipynb``); ``--regexp`` gives
nbgrader's ``named_regexp`` yourself (groups ``student_id`` and ``file_id``, matched against each file's whole path).
The zip is copied to ``downloaded/<assignment>/archive/`` (nbgrader's layout) and collected into
``submitted/<student>/<assignment>/``; what it could not place is listed, nothing is skipped silently.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from autograder.tools.paths import REPO
from autograder.tools.release import run_nbgrader

NAMES = {
    "plain": r".*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+)$",
    "canvas": r".*/(?P<student_id>[^/_]+)_(?:LATE_)?\d+_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$",
    "moodle": r".*/(?P<student_id>[^/_]+)_\d+_assignsubmission_file_(?P<file_id>[^/]+)$",
}


def collect(course: Path, assignment: str, archive: Path, regexp: str) -> dict:
    """Collect ``archive`` (a zip, or a single file) for ``assignment``; returns the students collected and the
    files nbgrader skipped (its warnings)."""
    if not (course / "exercises" / assignment).is_dir():  # nbgrader's release folder (nbgrader_config.py)
        raise FileNotFoundError(f"{assignment} is not released in {course}: run `make release` first")
    inbox = course / "downloaded" / assignment / "archive"
    shutil.rmtree(inbox, ignore_errors=True)  # this download only: nbgrader collects every archive it finds there
    inbox.mkdir(parents=True)
    shutil.copy2(archive, inbox / archive.name)
    before = {p.parent.parent.name for p in (course / "submitted").glob(f"*/{assignment}/*.ipynb")}
    # strict: a notebook whose name is not the released one is skipped (and listed), not filed under that name,
    # where the grading would find no submission
    done = run_nbgrader(course, "zip_collect", assignment, "--force", "--strict",
                        f"--FileNameCollectorPlugin.named_regexp={regexp}")
    text = done.stdout + done.stderr
    after = {p.parent.parent.name for p in (course / "submitted").glob(f"*/{assignment}/*.ipynb")}
    skipped, parsing = [], ""
    for line in text.splitlines():
        message = line.split("] ", 1)[-1]
        if message.startswith("Parsing file: "):  # nbgrader names the file before it says what it did with it
            parsing = Path(message.removeprefix("Parsing file: ")).name
        elif message.startswith("Skipped"):
            skipped.append(f"{parsing}: {message}")
    return {"assignment": assignment, "students": sorted(after), "new": sorted(after - before), "skipped": skipped}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.collect", description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--zip", type=Path, required=True, help="the platform's download (a .zip)")
    parser.add_argument("--names", choices=sorted(NAMES), default="plain")
    parser.add_argument("--regexp", help="nbgrader's named_regexp, instead of --names")
    parser.add_argument("--course", type=Path, default=REPO)
    args = parser.parse_args(argv)
    if not args.zip.is_file():
        parser.error(f"{args.zip}: no such file")
    found = collect(args.course.resolve(), args.assignment, args.zip.resolve(), args.regexp or NAMES[args.names])
    print(f"{args.assignment}: {len(found['students'])} student(s) in submitted/ ({len(found['new'])} new): "
          + ", ".join(found["students"]))
    for line in found["skipped"]:
        print(f"NOT COLLECTED: {line}")
    return 1 if found["skipped"] or not found["students"] else 0


if __name__ == "__main__":
    sys.exit(main())
