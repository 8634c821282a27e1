"""Inductor's on-disk cache after a process was killed mid-compile.

Inductor builds a CPU kernel's library straight into its final path (``<cache>/<xx>/<key>.main.so``; its probe of the
CPU's vector instructions, ``<key>.so``) and builds it only if that path does not exist yet (``_worker_compile_cpp``
in torch/_inductor/codecache.py, ``VecISA.check_build`` in cpu_vec_isa.py; read in torch 2.13), under the lock
``<cache>/locks/<key>.lock``. A compile killed while the linker wrote the file (a notebook cell stopped by its
timeout, a grading's worker killed at its limit) leaves a truncated library there for good: every later process
that shares the cache and compiles that kernel loads it and dies (SIGBUS, measured on torch 2.13) or fails ("file
too short"); a truncated probe turns vectorisation off. :func:`drop_truncated_libraries` removes such files where no
build of theirs is in progress, so that the next compile builds them again.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from filelock import FileLock, Timeout  # torch's own dependency, the lock Inductor's builds take

from autograder.core.sandbox import open_regular

_ELF64_HEADER = 64


def truncated(path: Path) -> bool:
    """The file is not a whole 64-bit ELF library: shorter than its header, not ELF, or ending before its section
    header table (which the linker writes last)."""
    try:
        with open_regular(path) as f:  # never through a link, nor a FIFO left in its place
            head = f.read(_ELF64_HEADER)
            size = os.fstat(f.fileno()).st_size
    except OSError:
        return False  # gone, a link, or not a file: nothing to repair
    if len(head) < _ELF64_HEADER or head[:4] != b"\x7fELF" or head[4] != 2:  # EI_CLASS 2: 64-bit
        return True
    order = "<" if head[5] == 1 else ">"  # EI_DATA 1: little-endian
    (shoff,) = struct.unpack_from(order + "Q", head, 0x28)
    shentsize, shnum = struct.unpack_from(order + "HH", head, 0x3A)
    return shoff + shentsize * shnum > size


def drop_truncated_libraries(cache: Path) -> list[Path]:
    """Remove every truncated kernel library under ``cache`` (an Inductor cache directory) whose build lock is free,
    i.e. whose writer is gone; a library being built now (its lock held) is left alone. Returns what was removed.
    Never raises: a cache it cannot read is left as it is (what it guards against must not stop a grading)."""
    removed, locks = [], Path(cache) / "locks"
    try:
        if not Path(cache).is_dir() or locks.is_symlink():
            return removed
        libraries = sorted(Path(cache).glob("*/*.so"))
    except OSError:
        return removed
    for path in libraries:
        # links are never followed: a writer of the cache could point one at a file of the judge's to be deleted, or
        # a lock (which FileLock opens truncating) at one to be emptied
        lock = locks / (path.name.removesuffix(".so").removesuffix(".main") + ".lock")
        try:
            if path.parent.is_symlink() or lock.is_symlink() or not truncated(path):
                continue
            with FileLock(str(lock), timeout=0):
                if truncated(path):  # not rebuilt while the lock was taken
                    path.unlink(missing_ok=True)
                    removed.append(path)
        except (Timeout, OSError):  # a build in progress, or a lock folder that is not ours to write
            continue
    return removed
