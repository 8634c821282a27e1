"""What a lesson's cells printed on a GPU, kept as text beside the course so its prose can be tested against it.

    python -m autograder.tools.lesson_outputs --gpu "NVIDIA H200" --torch 2.11.0+cu130 build/notebooks/lessons/*.ipynb

Reads executed notebooks (``make check DEVICE=cuda SIZE=full`` writes them under build/notebooks/) and writes
benchmarks/lesson-outputs/<lesson>.json: per code cell, by its id, the text it printed (stdout, and the plain-text
form of its results; no images). tests/test_lesson_claims_gpu.py reads these files: each quantitative claim of a
lesson's prose is tied there to the cell output that shows it, so a new GPU run that contradicts the prose fails
the suite once its outputs are written here.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

from autograder.tools.paths import REPO

OUT_DIR = REPO / "benchmarks" / "lesson-outputs"
MAX_CELL_CHARS = 20_000  # a cell's text beyond this is cut (log floods); claims read summaries, not floods


def cell_text(cell: dict) -> str:
    parts = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            parts.append("".join(output.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            text = output.get("data", {}).get("text/plain")
            if text and not output.get("data", {}).get("image/png"):
                parts.append("".join(text) + "\n")
        elif kind == "error":
            parts.append(f"{output.get('ename')}: {output.get('evalue')}\n")
    text = "".join(parts)
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + "\n[cut]\n"


def extract(notebook: Path, gpu: str, torch_version: str, date: str) -> dict:
    nb = json.loads(Path(notebook).read_text())
    cells = {c["id"]: cell_text(c) for c in nb["cells"] if c["cell_type"] == "code" and c.get("id")}
    return {"notebook": Path(notebook).name, "gpu": gpu, "torch": torch_version, "date": date,
            "size": "full", "cells": {k: v for k, v in cells.items() if v}}


def load(lesson: str) -> dict:
    """The recorded outputs of a lesson (``"05_dynamic_shapes"``), as ``extract`` wrote them."""
    return json.loads((OUT_DIR / f"{lesson}.json").read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.lesson_outputs",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path, help="executed lesson notebooks")
    parser.add_argument("--gpu", required=True, help="the GPU they ran on, as torch.cuda.get_device_name() says")
    parser.add_argument("--torch", required=True, help="torch.__version__ there")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for notebook in args.notebooks:
        record = extract(notebook, args.gpu, args.torch, args.date)
        (args.out / f"{notebook.stem}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"{notebook.stem}: {len(record['cells'])} cells with output")
    return 0


if __name__ == "__main__":
    sys.exit(main())
