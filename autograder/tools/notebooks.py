"""Notebook hygiene: committed notebooks carry no outputs, execution counts, widget state or local kernel names.

    python -m autograder.tools.notebooks strip [PATH ...]   # rewrite in place (default: every course notebook)
    python -m autograder.tools.notebooks check [PATH ...]   # exit 1 and name each unclean notebook

nbgrader cell metadata and cell tags (``parameters`` for papermill) survive stripping.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from autograder.tools.paths import REPO

NOTEBOOK_DIRS = ("lessons", "solutions", "exercises")
KEEP_CELL_METADATA = ("nbgrader", "tags", "editable", "deletable")
# A generic kernel name, so a notebook runs under whatever Python kernel the reader has.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
FIX_COMMAND = "make strip"


def course_notebooks(root: Path = REPO) -> list[Path]:
    """Every committed course notebook, sorted, checkpoints excluded."""
    found = []
    for folder in NOTEBOOK_DIRS:
        found += [p for p in (root / folder).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts]
    return sorted(found)


LOG_TAG = "shows-logs"  # a cell whose point is a log (TORCH_LOGS, a warning) may print more than the budget
STDERR_BUDGET = 8  # lines of stderr one executed cell may show: a few, never a wall of warnings or logs


def noisy_cells(nb: nbformat.NotebookNode, budget: int = STDERR_BUDGET) -> list[str]:
    """Executed code cells that print more than ``budget`` lines to stderr, except cells tagged ``shows-logs``;
    one line each: the cell's number, the count and the first line."""
    found = []
    for number, cell in enumerate(nb.cells, 1):
        if cell.cell_type != "code" or LOG_TAG in cell.metadata.get("tags", []):
            continue
        text = "".join(o.get("text", "") for o in cell.get("outputs", [])
                       if o.get("output_type") == "stream" and o.get("name") == "stderr")
        lines = text.splitlines()
        if len(lines) > budget:
            found.append(f"cell {number}: {len(lines)} lines on stderr, starting {lines[0][:100]!r} (capture the "
                         f"log, or tag the cell {LOG_TAG!r} if the log is the point)")
    return found


def unreadable_reason(path: Path) -> str:
    """'' if ``path`` is a valid notebook, else why not (one line)."""
    try:
        nbformat.validate(nbformat.read(path, as_version=4))
        return ""
    except Exception as err:  # not JSON, not a notebook, or not a valid one
        return f"{type(err).__name__}: {str(err).splitlines()[0][:300] if str(err) else ''}"


def for_nbgrader(data: bytes, released: set[str] | frozenset[str]) -> bytes:
    """A student's notebook (bytes) that nbgrader 0.9 can autograde and record. nbgrader fails on a cell whose
    nbgrader metadata names a grade_id that is not among the ``released`` cells of this assignment (a cell copied
    from another exercise: JupyterLab's copy keeps its metadata) or that appears twice (Split Cell and copy-paste
    copy it), and on metadata without a grade_id (it blanks duplicates to ``{}`` itself, then fails: KeyError
    'grade_id'): the honest student was not recorded at all. Such cells become plain cells here; of a released
    grade_id that appears more than once only the last keeps its metadata, as nbgrader's own DeduplicateIds
    keeps. The code is untouched; nbgrader restores released cells that are missing. Unreadable input is returned
    as it is (the caller reports it)."""
    import json

    try:
        nb = json.loads(data)
        seen: set = set()
        for cell in reversed(nb["cells"]):
            meta = cell.get("metadata", {})
            if "nbgrader" not in meta:
                continue
            grade_id = meta["nbgrader"].get("grade_id") if isinstance(meta["nbgrader"], dict) else None
            if grade_id not in released or grade_id in seen:
                del meta["nbgrader"]
            seen.add(grade_id)
    except (ValueError, TypeError, KeyError, AttributeError):
        return data
    return json.dumps(nb, ensure_ascii=False).encode()


def strip(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` without outputs, counts or local metadata (modified in place)."""
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}})
    for cell in nb.cells:
        cell.metadata = nbformat.from_dict(
            {k: cell.metadata[k] for k in KEEP_CELL_METADATA if k in cell.metadata}
        )
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nb


def canonical_text(nb: nbformat.NotebookNode) -> str:
    """The exact text a clean notebook has on disk."""
    return nbformat.writes(strip(nb)) + "\n"


def is_clean(path: Path) -> bool:
    text = Path(path).read_text(encoding="utf-8")
    return text == canonical_text(nbformat.reads(text, as_version=4))


def strip_file(path: Path) -> bool:
    """Strip ``path`` in place; return True when it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    clean = canonical_text(nbformat.reads(text, as_version=4))
    if clean != text:
        path.write_text(clean, encoding="utf-8")
        return True
    return False


OUTPUT_CAP = 200_000  # characters of one output a feedback page keeps


def cap_outputs(path: Path, limit: int = OUTPUT_CAP) -> int:
    """Cut every text output of the notebook at ``path`` longer than ``limit`` characters, saying so in place; the
    number cut. Feedback pages are rendered from a student's executed notebook, and nbconvert's ANSI filter takes
    quadratic time in a line's escape codes (a red team's one printed line of 2 million took 330 s to render,
    keeping every later student and assignment waiting). The scores are in the gradebook, never in outputs."""
    nb = nbformat.read(path, as_version=4)
    cut = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            fields = [("text", output)] if "text" in output else []
            fields += [(mime, output["data"]) for mime in output.get("data", {}) if mime.startswith("text/")]
            for key, holder in fields:
                text = holder[key] if isinstance(holder[key], str) else "".join(map(str, holder[key]))
                if len(text) > limit:
                    keep = max(limit - 300, 0)  # with the note, within the limit: cut once
                    holder[key] = (text[:keep] + f"\n[... {len(text) - keep} more characters of this output cut "
                                   f"by the grader: a feedback page keeps the first {keep} ...]\n")
                    cut += 1
    if cut:
        nbformat.write(nb, path)
    return cut


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.notebooks", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["strip", "check"])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every course notebook)")
    args = parser.parse_args(argv)
    paths = args.paths or course_notebooks()
    if args.command == "strip":
        for path in paths:
            if strip_file(path):
                print(f"stripped {path}")
        return 0
    unclean = [p for p in paths if not is_clean(p)]
    for path in unclean:
        print(f"{path}: has outputs, execution counts or local metadata; fix with `{FIX_COMMAND}`")
    return 1 if unclean else 0


if __name__ == "__main__":
    sys.exit(main())

