"""A memory and task limit for each grading unit, from the kernel's control groups, where the host offers them.

The sandbox (core/sandbox.py) limits each process's own data (``prlimit --data``), but not what a unit's processes
use together, nor memory outside a process's data: files in a host's ``/dev/shm`` (the GPU path shares it for CUDA
IPC), page cache, or a thousand forked processes (THREAT_MODEL.md, "shared memory" and "fork loops"). A control
group counts all of that for every process of the unit and its descendants, which cannot leave it:

* ``systemd-run --scope -p MemoryMax=... -p TasksMax=...`` where systemd runs the host (a user's own manager
  needs no root), else
* the kernel's cgroup filesystem directly, where this process may create a group under its own (cgroup v2: one
  tree; v1: the ``memory`` and ``pids`` hierarchies), as root in a container or with a delegated subtree.

Where neither works (a plain user without delegation, macOS) the units run without one, and ``describe`` says so.
Slurm's own cgroup plugin does the same for `make autograde-slurm` (``--mem``, ``ConstrainRAMSpace=yes``).
``COURSE_UNIT_MEMORY`` (default 32G) and ``COURSE_UNIT_TASKS`` (default 4096: threads count) set the limits;
``COURSE_UNIT_CGROUP=off`` turns it off.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

from autograder.core.sandbox import size_bytes

ROOT = Path("/sys/fs/cgroup")
MEMORY_ENV, TASKS_ENV, OFF_ENV = "COURSE_UNIT_MEMORY", "COURSE_UNIT_TASKS", "COURSE_UNIT_CGROUP"


def limits() -> tuple[int, int]:
    """(bytes, tasks) a unit may use in all."""
    try:
        memory = size_bytes(os.environ.get(MEMORY_ENV, "32G"))
        tasks = int(os.environ.get(TASKS_ENV, "4096"))
    except ValueError:
        raise ValueError(f"{MEMORY_ENV}={os.environ.get(MEMORY_ENV)!r} / {TASKS_ENV}={os.environ.get(TASKS_ENV)!r}: "
                         "give a size such as 32G and a number of tasks") from None
    return memory, tasks


@functools.cache
def _systemd_run() -> bool:
    path = shutil.which("systemd-run")
    if not path:
        return False
    try:
        done = subprocess.run([path, "--scope", "--quiet", "-p", "TasksMax=64", "true"], capture_output=True,
                              timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _own(hierarchy: str) -> Path | None:
    """This process's own group in ``hierarchy`` ('' for cgroup v2's one tree), as /proc/self/cgroup names it."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (hierarchy == "" and controllers == "") or hierarchy in controllers.split(","):
            base = ROOT / hierarchy if hierarchy else ROOT
            for candidate in (base / path.lstrip("/"), base):  # in a cgroup namespace the mount is our own group
                if (candidate / "cgroup.procs").exists():
                    return candidate
    return None


@functools.cache
def _kernel() -> tuple[str, tuple[Path, ...]] | None:
    """('v2', (parent,)) or ('v1', (memory parent, pids parent)) where this process can make groups, else None."""
    probe = f"course-probe-{os.getpid()}"
    v2 = _own("") if (ROOT / "cgroup.controllers").exists() else None
    candidates = [("v2", (v2,))] if v2 else []
    memory, pids = _own("memory"), _own("pids")
    if memory and pids:
        candidates.append(("v1", (memory, pids)))
    for kind, parents in candidates:
        made = []
        try:
            for parent in parents:
                (parent / probe).mkdir()
                made.append(parent / probe)
            if kind == "v2" and not {"memory", "pids"} <= set((parents[0] / "cgroup.subtree_control").read_text()
                                                                 .split()):
                continue
            return kind, parents
        except OSError:
            continue
        finally:
            for group in made:
                try:
                    group.rmdir()
                except OSError:
                    pass
    return None


def mode() -> str:
    if os.environ.get(OFF_ENV, "").lower() in ("off", "0", "none"):
        return "off"
    if _systemd_run():
        return "systemd-run"
    kernel = _kernel()
    return f"cgroup {kernel[0]}" if kernel else "none"


def describe() -> str:
    current = mode()
    if current in ("off", "none"):
        why = f"{OFF_ENV}=off" if current == "off" else "no systemd-run scope, no cgroup this user may create"
        return f"no unit cgroup ({why}): each process keeps its own memory limit only"
    memory, tasks = limits()
    return f"each unit in a cgroup ({current}): {memory / 2**30:g} GiB and {tasks} tasks in all"


class UnitGroup:
    """The limits around one unit: ``argv`` to run (systemd-run's scope), ``preexec`` to call in the child before it
    runs anything (joining a kernel group), and ``close`` to kill what is left in the group and remove it. Where
    ``mode()`` is off or none, all three leave the unit as it is."""

    def __init__(self, name: str = "", kind: str | None = None):
        self.name = f"course-unit-{name or ''}-{uuid.uuid4().hex[:8]}".replace("--", "-")
        self.kind = kind or mode()
        self.groups: list[Path] = []
        self.memory, self.tasks = limits() if self.kind not in ("off", "none") else (0, 0)
        if self.kind.startswith("cgroup"):
            version, parents = _kernel()
            for parent in parents:
                group = parent / self.name
                group.mkdir()
                self.groups.append(group)
            files = ({"memory.max": self.memory, "memory.swap.max": 0, "pids.max": self.tasks} if version == "v2"
                     else {"memory.limit_in_bytes": self.memory, "pids.max": self.tasks})
            for group in self.groups:
                for file, value in files.items():
                    if (group / file).exists():
                        (group / file).write_text(str(value))

    def argv(self, argv: list[str]) -> list[str]:
        if self.kind != "systemd-run":
            return list(argv)
        return [shutil.which("systemd-run"), "--scope", "--quiet", f"--unit={self.name}", "-p",
                f"MemoryMax={self.memory}", "-p", f"TasksMax={self.tasks}", "--", *argv]

    def preexec(self) -> None:
        for group in self.groups:
            (group / "cgroup.procs").write_text(str(os.getpid()))

    def close(self) -> None:
        for _ in range(50):
            alive = [int(p) for g in self.groups for p in (g / "cgroup.procs").read_text().split() if p.strip()]
            if not alive:
                break
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
        for group in self.groups:
            try:
                group.rmdir()
            except OSError:
                pass


# ---- a worker's CPU, counted by the kernel ----
@functools.cache
def _cpu_parent() -> tuple[str, Path] | None:
    """('v2', group) or ('v1', cpuacct group) under which this process can make a group that counts CPU time."""
    if os.environ.get(OFF_ENV, "").lower() in ("off", "0", "none"):
        return None
    probe = f"course-cpu-probe-{os.getpid()}"
    candidates = []
    if (ROOT / "cgroup.controllers").exists() and _own(""):
        candidates.append(("v2", _own(""), "cpu.stat"))
    if _own("cpuacct"):
        candidates.append(("v1", _own("cpuacct"), "cpuacct.usage"))
    for version, parent, usage in candidates:
        group = parent / probe
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            if (group / usage).exists() and os.access(group / "cgroup.procs", os.W_OK):
                return version, parent
        finally:
            try:
                group.rmdir()
            except OSError:
                pass
    return None


class CpuGroup:
    """A control group that counts the CPU time of one worker and of every process it ever starts: the kernel
    charges each process's time to its group as it runs, whatever becomes of the process afterwards (one the kernel
    reaps itself because its parent ignores SIGCHLD takes its time out of every count in /proc; one that leaves the
    worker's tree stays in the group). ``make()`` is None where this process cannot make one (no cgroup it may
    write, macOS, COURSE_UNIT_CGROUP=off): the caller counts from /proc then."""

    def __init__(self, version: str, group: Path):
        self.version, self.group = version, group

    @classmethod
    def make(cls) -> CpuGroup | None:
        found = _cpu_parent()
        if found is None:
            return None
        version, parent = found
        _remove_left()
        group = parent / f"course-worker-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            group.mkdir()
        except OSError:
            return None
        return cls(version, group)

    @contextlib.contextmanager
    def joining(self):
        """A ``preexec_fn`` for subprocess.Popen: the child joins the group before it runs anything (through a file
        descriptor opened here: nothing in the child but a write). A child that cannot join runs as it would have;
        ``holds`` tells."""
        try:
            fd = os.open(self.group / "cgroup.procs", os.O_WRONLY)
        except OSError:
            yield None
            return

        def join() -> None:
            try:
                os.write(fd, str(os.getpid()).encode())
            except OSError:
                pass

        try:
            yield join
        finally:
            os.close(fd)

    def holds(self, pid: int) -> bool:
        """Whether ``pid`` is in the group (the join above can fail without stopping the command)."""
        try:
            return str(pid) in (self.group / "cgroup.procs").read_text().split()
        except OSError:
            return False

    def add(self, pid: int) -> bool:
        try:
            (self.group / "cgroup.procs").write_text(str(pid))
            return True
        except OSError:
            return False

    def seconds(self) -> float | None:
        """CPU seconds of every process that was ever in the group (user and system), None if unreadable."""
        try:
            if self.version == "v1":
                return int((self.group / "cpuacct.usage").read_text()) / 1e9
            for line in (self.group / "cpu.stat").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def close(self) -> None:
        """Remove the group once it is empty (the caller killed what was in it). One that still holds a dying
        process is removed later: at the next ``make`` or when this process exits."""
        for _ in range(10):
            if _remove(self.group):
                return
            time.sleep(0.05)
        if not _LEFT:
            atexit.register(_remove_left)
        _LEFT.append(self.group)


_LEFT: list[Path] = []  # groups that were not empty yet when closed


def _remove(group: Path) -> bool:
    try:
        group.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _remove_left() -> None:
    _LEFT[:] = [group for group in _LEFT if not _remove(group)]
