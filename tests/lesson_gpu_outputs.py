"""Helpers for the tests that tie a lesson's prose to what its cells printed on a GPU
(benchmarks/lesson-outputs/, written by ``python -m autograder.tools.lesson_outputs``)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import torch

from autograder.tools.lesson_outputs import OUT_DIR, load
from autograder.tools.paths import REPO


def output(lesson: str, cell: str) -> str:
    """The text cell ``cell`` (its id) of ``lesson`` printed in the recorded GPU run."""
    cells = load(lesson)["cells"]
    assert cell in cells, f"{lesson}: no recorded output for cell {cell!r} (recorded: {sorted(cells)})"
    return cells[cell]


def numbers(lesson: str, cell: str, pattern: str) -> list[float]:
    """Every match of ``pattern``'s first group in that cell's output, as floats; fails if there is none."""
    found = [float(m.group(1)) for m in re.finditer(pattern, output(lesson, cell))]
    assert found, f"{lesson} cell {cell}: {pattern!r} found nothing in its recorded output"
    return found


def number(lesson: str, cell: str, pattern: str) -> float:
    return numbers(lesson, cell, pattern)[0]


def prose(lesson: str, cell: str) -> str:
    """The source of a lesson's cell (markdown or code), by id, as committed."""
    nb = json.loads((REPO / "lessons" / f"{lesson}.ipynb").read_text())
    found = [c for c in nb["cells"] if c.get("id") == cell]
    assert found, f"lessons/{lesson}.ipynb has no cell {cell!r}"
    return "".join(found[0]["source"])


def run_cell(lesson: str, cell: str, namespace: dict) -> str:
    """Run a lesson cell's source on this machine in ``namespace`` (which keeps what it defines); what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(prose(lesson, cell), f"lessons/{lesson}.ipynb:{cell}", "exec"), namespace)  # noqa: S102
    return printed.getvalue()


def says(lesson: str, cell: str, *phrases: str) -> None:
    """Fail unless the lesson's cell still says every phrase (line breaks and runs of spaces folded: prose wraps
    its sentences across lines)."""
    text = " ".join(prose(lesson, cell).split())
    for phrase in phrases:
        assert " ".join(phrase.split()) in text, f"lessons/{lesson}.ipynb cell {cell} no longer says {phrase!r}"


def recorded(lesson: str) -> dict:
    return load(lesson)


EARLIER_DIR = OUT_DIR / "earlier"
# The recorded GPU runs the prose and the tests name, by their records' ``date``
MORNING, AFTERNOON = "2026-11-27", "2026-11-27 afternoon"  # the two H200 runs of 2026-11-27
EVENING, NIGHT = "2026-11-29 evening", "2026-11-29 night"  # the two H200 runs of 2026-11-29
TORCH_DIR = Path(torch.__file__).parent  # the installed torch: the sources and headers the prose cites
_RUN_LABEL = re.compile(r"\d{4}-\d{2}-\d{2}(?: (?:morning|afternoon|evening|night))?")


def earlier_records(lesson: str) -> list[dict]:
    """Earlier recorded GPU runs of the lesson (benchmarks/lesson-outputs/earlier/<run>/), oldest first: the same
    shape as :func:`recorded`, kept when a later run replaced the record."""
    return [json.loads(p.read_text()) for p in sorted(EARLIER_DIR.glob(f"*/{lesson}.json"))]


def all_records(lesson: str) -> list[dict]:
    """Every recorded GPU run of the lesson: the record, then the earlier records, oldest first."""
    return [recorded(lesson), *earlier_records(lesson)]


def record_dated(lesson: str, date: str) -> dict:
    """The one recorded run of the lesson whose ``date`` is ``date`` (as the prose names a run)."""
    found = [r for r in all_records(lesson) if r["date"] == date]
    dates = [r["date"] for r in all_records(lesson)]
    assert len(found) == 1, f"no single record of lessons/{lesson}.ipynb dated {date!r} (recorded: {dates})"
    return found[0]


def earlier_rows(lesson: str, skip_recorded: bool = False) -> list[tuple[str, str]]:
    """(GPU: "H100" or "H200", the table row) for each full-size run of ``lesson`` in benchmarks/notebook-runs.md,
    except the row of the run the record holds (``skip_recorded``: and the rows of runs an earlier record holds,
    whose whole output the record has). A section's run is named by the first date in its heading and an optional
    "morning"/"afternoon"/"evening"/"night" after it (two runs of one day are two runs); a record's ``date`` names
    its run the same way."""
    rows, gpu, label = [], "H200", None
    skipped = {r["date"] for r in (all_records(lesson) if skip_recorded else [recorded(lesson)])}
    for line in (REPO / "benchmarks" / "notebook-runs.md").read_text().splitlines():
        if line.startswith("## "):
            gpu = "H100" if "H100" in line else "H200"
            found = _RUN_LABEL.search(line)
            label = found[0] if found else label
        elif line.startswith(f"| lessons/{lesson}.ipynb") and label not in skipped:
            rows.append((gpu, line))
    return rows


__all__ = ["AFTERNOON", "EARLIER_DIR", "EVENING", "MORNING", "NIGHT", "OUT_DIR", "TORCH_DIR", "all_records",
           "earlier_records", "earlier_rows", "number", "numbers", "output", "prose", "record_dated", "recorded",
           "run_cell", "says"]
