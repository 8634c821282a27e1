"""A compile killed while it wrote a kernel library must not poison Inductor's shared cache for every later process."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from filelock import FileLock

from autograder.core.compile_cache import drop_truncated_libraries, truncated
from autograder.core.grading import Session

COMPILE = """
import torch
f = torch.compile(lambda x: (x * 3.5).tanh() + 0.25)
print("result", float(f(torch.ones(16)).sum()))
"""


def _compile_in_a_new_process(cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", COMPILE], env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, timeout=300)


def test_a_truncated_kernel_library_kills_every_later_compile_of_it_until_it_is_dropped(tmp_path):
    assert _compile_in_a_new_process(tmp_path).returncode == 0
    kernels = sorted(tmp_path.glob("*/*.main.so"))
    assert kernels and not any(truncated(p) for p in kernels)
    assert drop_truncated_libraries(tmp_path) == []  # whole libraries stay
    for path in kernels:  # as the linker leaves it when killed mid-write
        path.write_bytes(path.read_bytes()[:4096])
    poisoned = _compile_in_a_new_process(tmp_path)
    assert poisoned.returncode != 0, "torch now rebuilds a truncated library: this module may not be needed"
    assert drop_truncated_libraries(tmp_path) == kernels
    again = _compile_in_a_new_process(tmp_path)
    assert again.returncode == 0 and "result" in again.stdout, again.stderr[-2000:]
    assert not any(truncated(p) for p in sorted(tmp_path.glob("*/*.main.so")))


def test_an_empty_or_foreign_file_is_truncated_and_one_being_built_is_left_alone(tmp_path):
    (tmp_path / "ab").mkdir()
    (tmp_path / "locks").mkdir()
    empty, building = tmp_path / "ab" / "cabc.main.so", tmp_path / "ab" / "cdef.main.so"
    empty.write_bytes(b"")
    building.write_bytes(b"\x7fELF")
    probe = tmp_path / "ab" / "cghi.so"  # the vector-instruction probe's library: <key>.so
    probe.write_bytes(b"not a library")
    assert truncated(empty) and truncated(building) and truncated(probe)
    with FileLock(str(tmp_path / "locks" / "cdef.lock")):  # its build holds the lock: the linker may be writing it
        assert drop_truncated_libraries(tmp_path) == [empty, probe]
    assert building.exists() and not empty.exists() and not probe.exists()


def test_links_in_the_cache_are_never_followed(tmp_path):
    outside = tmp_path / "judge"
    outside.mkdir()
    victim, kept = outside / "notes.so", outside / "keep.txt"
    victim.write_bytes(b"not a library")
    kept.write_text("the judge's")
    cache = tmp_path / "cache"
    (cache / "locks").mkdir(parents=True)
    (cache / "ab").symlink_to(outside)  # a folder of the cache that is a link elsewhere
    (cache / "cd").mkdir()
    (cache / "cd" / "cxyz.main.so").symlink_to(victim)  # a library that is a link
    (cache / "cd" / "cuvw.main.so").write_bytes(b"")  # truncated, but its lock is a link to a file of the judge's
    (cache / "locks" / "cuvw.lock").symlink_to(kept)
    assert drop_truncated_libraries(cache) == []
    assert victim.read_bytes() == b"not a library" and kept.read_text() == "the judge's"


def test_a_worker_is_started_only_after_the_worker_cache_lost_its_truncated_libraries(monkeypatch):
    with tempfile.TemporaryDirectory() as shared, tempfile.TemporaryDirectory() as scratch:
        monkeypatch.setenv("COURSE_WORKER_CACHE", shared)
        left = Path(shared) / "inductor" / "xy" / "cxyz.main.so"  # what a worker killed at its limit left
        left.parent.mkdir(parents=True)
        left.write_bytes(b"\x7fELF\x02\x01")
        session = Session.spawn(timeout=60, scratch=Path(scratch))
        try:
            assert not left.exists()
            assert session.call("hello") is not None
        finally:
            session.close()
