"""Generate the student versions (exercises/) from the single source (solutions/) with nbgrader.

    python -m autograder.tools.release [RELEASE_DIR]      # what `make exercises` runs; default exercises/

Runs nbgrader's own `generate_assignment` for every assignment folder in solutions/, then strips the
generated notebooks so they are byte-for-byte what is committed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.tools.notebooks import strip_file
from autograder.tools.paths import REPO

SOURCE = REPO / "solutions"


def assignments(source: Path = SOURCE) -> list[str]:
    """Assignment ids: the folders of solutions/ that hold a notebook."""
    return sorted(p.name for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))


NBGRADER = "autograder.tools.nbgrader_main"  # `python -m nbgrader`, started faster


def nbgrader_command(course: Path, *args: str) -> tuple[list[str], dict]:
    """The command line and environment that run one nbgrader command for the course folder ``course``."""
    env = dict(os.environ)
    # nbgrader shells out to `alembic` for its gradebook: this interpreter's scripts must be on PATH.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return [sys.executable, "-m", NBGRADER, *args, f"--CourseDirectory.root={course}"], env


def run_nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one nbgrader command in the course folder ``course``; raise with its output if it fails."""
    cmd, env = nbgrader_command(course, *args)
    proc = subprocess.run(cmd, cwd=course, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(cmd[3:])} failed (exit {proc.returncode}):\n{proc.stdout}\n"
                           f"{proc.stderr}")
    return proc


def generate(release_dir: Path, db_url: str | None = None, course: Path = REPO) -> list[Path]:
    """Run nbgrader generate_assignment for every assignment of ``course`` into ``release_dir``; return the
    notebooks. ``db_url``: the gradebook that records them (default: a scratch one, thrown away)."""
    release_dir = Path(release_dir).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        db = db_url or f"sqlite:///{scratch}/gradebook.db"
        for name in assignments(course / "solutions"):
            run_nbgrader(course, "generate_assignment", name, "--force", "--quiet",
                         f"--CourseDirectory.release_directory={release_dir}", f"--CourseDirectory.db_url={db}")
    notebooks = sorted(release_dir.glob("*/*.ipynb"))
    for nb in notebooks:
        strip_file(nb)
    return notebooks


def answers(path: Path) -> dict[str, str]:
    """The source of each answer cell (nbgrader's ``solution`` cells) of the notebook at ``path``, by grade id."""
    try:
        cells = json.loads(path.read_text()).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return {}
    found = {}
    for cell in cells if isinstance(cells, list) else []:
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
        if isinstance(meta, dict) and meta.get("solution"):
            source = cell.get("source", "")
            found[str(meta.get("grade_id"))] = "".join(source) if isinstance(source, list) else str(source)
    return found


def install(generated: Path, release_dir: Path) -> list[tuple[Path, Path]]:
    """Copy the freshly generated notebooks over ``release_dir``; a notebook there whose answer cells hold anything
    but the stubs (a learner's work) is first kept beside it as ``NAME.ipynb.mine-N``. Returns (kept, copy) pairs."""
    kept = []
    for new in sorted(generated.rglob("*")):
        if not new.is_file():
            continue
        target = release_dir / new.relative_to(generated)
        if target.suffix == ".ipynb" and target.is_file() and target.read_bytes() != new.read_bytes():
            fresh = answers(new)
            if any(source != fresh.get(grade_id) for grade_id, source in answers(target).items()):
                n = 1
                while target.with_name(f"{target.name}.mine-{n}").exists():
                    n += 1
                copy = target.with_name(f"{target.name}.mine-{n}")
                shutil.copy2(target, copy)
                kept.append((target, copy))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(new, target)
    return kept


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    release_dir = (Path(argv[0]) if argv else REPO / "exercises").resolve()
    with tempfile.TemporaryDirectory(prefix="release-") as scratch:
        notebooks = generate(Path(scratch))
        kept = install(Path(scratch), release_dir)
        for nb in notebooks:
            print(f"generated {release_dir / nb.relative_to(scratch)}")
    for target, copy in kept:
        print(f"KEPT YOUR WORK: {target.relative_to(release_dir)} held your answers; they are in {copy.name} beside "
              "it (open that one to go on)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
