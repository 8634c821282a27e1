"""The workers' compile cache, filled with the course's own compiles before a class (issue 41: a unit's seconds go
to first compiles that a sandboxed worker cannot keep)."""

import json

import pytest

from autograder.tools import warm


@pytest.mark.slow
def test_warming_compiles_a_reference_into_the_workers_cache_once_per_version(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WORKER_CACHE", str(tmp_path / "cache"))
    done = warm.warm(["04_graph_breaks"])
    assert done["warm"] == "done" and done["exercises"] == ["04_graph_breaks"], done
    kernels = [p for p in (tmp_path / "cache" / "inductor").rglob("*") if p.is_file()]
    assert kernels, "the reference's compiles did not reach the workers' cache"
    marker = json.loads((tmp_path / "cache" / warm.MARKER).read_text())
    assert marker["grader"] == warm.stamp()["grader"]
    assert warm.warm(["04_graph_breaks"])["warm"] == "already"  # same torch, device and grader: nothing to do
    (tmp_path / "cache" / warm.MARKER).write_text(json.dumps({**marker, "grader": "an older grader"}))
    assert warm.warm(["04_graph_breaks"])["warm"] == "done"  # another grader: its references compiled again
