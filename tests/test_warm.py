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


def test_with_several_gpus_the_references_are_warmed_at_once_one_gpu_each(tmp_path, monkeypatch):
    """--workers N on a host with N GPUs: every reference graded once, N at a time, each grading given its own GPU
    and cores (the slots make autograde uses), the longest first; the marker written once all passed."""
    import threading
    import time
    from types import SimpleNamespace

    monkeypatch.setenv("COURSE_WORKER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(warm, "gpu_count", lambda: 4)
    monkeypatch.setattr(warm, "stamp", lambda: {"torch": "t", "grader": "g", "device": "4 GPUs"})
    running, seen, lock = [], [], threading.Lock()

    def grade(argv, env, preexec_fn=None, **_):
        with lock:
            running.append(env["CUDA_VISIBLE_DEVICES"])
            seen.append((argv[4], env["CUDA_VISIBLE_DEVICES"], len(running)))
        time.sleep(0.2)
        with lock:
            running.remove(env["CUDA_VISIBLE_DEVICES"])
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    monkeypatch.setattr(warm.subprocess, "run", grade)
    done = warm.warm(workers=4)
    assert done["warm"] == "done" and done["at_once"] == 4
    assert sorted(e for e, _, _ in seen) == sorted(warm.EXERCISES)
    assert seen[0][0] == "02_compile_pipeline"
    assert max(n for _, _, n in seen) == 4  # four at once, never more
    assert {gpu for _, gpu, _ in seen} == {"0", "1", "2", "3"}
    assert (tmp_path / "cache" / warm.MARKER).is_file()


def test_on_a_cpu_the_references_are_warmed_one_at_a_time(tmp_path, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setenv("COURSE_WORKER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(warm, "gpu_count", lambda: 0)
    monkeypatch.setattr(warm.subprocess, "run", lambda *a, **k: SimpleNamespace(returncode=0, stdout="", stderr=""))
    assert warm.warm(workers=4)["at_once"] == 1
