"""The record of what lessons printed on a GPU (benchmarks/lesson-outputs/) that the prose tests read."""

import json

from autograder.tools import lesson_outputs
from autograder.tools.paths import REPO


def test_a_cells_text_is_its_printed_output_and_plain_results_never_images_or_other_cells(tmp_path):
    nb = {"cells": [
        {"cell_type": "code", "id": "timed", "source": "", "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["eager 1.2 ms\n", "compiled 0.3 ms\n"]},
            {"output_type": "execute_result", "data": {"text/plain": ["4.0"]}},
            {"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": ["<Figure>"]}}]},
        {"cell_type": "code", "id": "raises", "source": "", "outputs": [
            {"output_type": "error", "ename": "RuntimeError", "evalue": "overwritten", "traceback": []}]},
        {"cell_type": "code", "id": "silent", "source": "", "outputs": []},
        {"cell_type": "markdown", "id": "prose", "source": "text"}]}
    path = tmp_path / "99_lesson.ipynb"
    path.write_text(json.dumps(nb))
    record = lesson_outputs.extract(path, "NVIDIA H200", "2.11.0+cu130", "2026-11-27")
    assert record["cells"] == {"timed": "eager 1.2 ms\ncompiled 0.3 ms\n4.0\n", "raises": "RuntimeError: overwritten\n"}
    assert (record["gpu"], record["torch"]) == ("NVIDIA H200", "2.11.0+cu130")


def test_every_lesson_has_a_recorded_gpu_run_whose_cells_still_exist():
    """A cell id the record names must still be a cell of the lesson: a renamed cell would leave its claims'
    tests reading an output the lesson no longer prints."""
    for lesson in sorted((REPO / "lessons").glob("*.ipynb")):
        record = lesson_outputs.load(lesson.stem)
        assert record["gpu"] and record["size"] == "full", record
        ids = {c.get("id") for c in json.loads(lesson.read_text())["cells"]}
        missing = set(record["cells"]) - ids
        assert not missing, f"{lesson.name}: recorded cells no longer in the lesson: {sorted(missing)}"
