"""Each grading unit in a control group (issue 41): a memory and a task limit over everything the unit starts, and
nothing of it left running when the unit ends. Skips, saying why, where the host offers no cgroup this user may
create."""

import os
import sys
import time

import pytest

from autograder.core import cgroups
from autograder.tools.grade_student import run_unit

pytestmark = pytest.mark.skipif(cgroups.mode() in ("none", "off"), reason=cgroups.describe())


def _unit(code: str, monkeypatch, **limits) -> tuple:
    for name, value in limits.items():
        monkeypatch.setenv(name, value)
    return run_unit([sys.executable, "-c", code], env=dict(os.environ), timeout=60, name="test")


def test_a_fork_loop_stops_at_the_units_task_limit(monkeypatch):
    code = ("import os, time\n"
            "n = 0\n"
            "try:\n"
            "    for n in range(500):\n"
            "        if os.fork() == 0:\n"
            "            time.sleep(30); os._exit(0)\n"
            "except OSError as err:\n"
            "    print('refused after', n, type(err).__name__)\n")
    code_, out, err = _unit(code, monkeypatch, COURSE_UNIT_TASKS="64")
    assert "refused after" in out, (code_, out, err)
    assert int(out.split()[2]) < 64


def test_memory_outside_any_process_counts_against_the_unit(monkeypatch):
    """A file in the host's /dev/shm (the GPU path shares it with workers) is no process's data: prlimit does not
    see it, the unit's group does."""
    path = f"/dev/shm/course-cgroup-test-{os.getpid()}"
    code = (f"f = open({path!r}, 'wb')\n"
            "for _ in range(64):\n"
            "    f.write(b'x' * (16 << 20)); f.flush()\n"
            "print('wrote 1 GiB')\n")
    try:
        code_, out, err = _unit(code, monkeypatch, COURSE_UNIT_MEMORY="256M")
    finally:
        if os.path.exists(path):
            os.unlink(path)
    assert "wrote 1 GiB" not in out and code_ != 0, (code_, out, err)


def test_nothing_a_unit_started_outlives_it(monkeypatch, tmp_path):
    marker = tmp_path / "pid"
    code = ("import os, subprocess, sys\n"  # a child in a session of its own, left running: a daemon
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], start_new_session=True)\n"
            f"open({str(marker)!r}, 'w').write(str(p.pid))\n")
    code_, out, err = _unit(code, monkeypatch)
    assert code_ == 0, err
    pid = int(marker.read_text())
    for _ in range(50):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":  # dead, not yet reaped by whoever adopted it
                    break
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the unit's daemon {pid} outlived it")


def test_a_workers_cpu_group_counts_children_the_kernel_reaped_and_is_removed_after():
    """/proc loses the CPU time of a child reaped by the kernel (its parent ignores SIGCHLD); the worker's control
    group still counts it, and is gone once closed."""
    import subprocess

    group = cgroups.CpuGroup.make()
    if group is None:
        pytest.skip("no cgroup this process may make for CPU accounting")
    code = ("import os, signal, time\nsignal.signal(signal.SIGCHLD, signal.SIG_IGN)\nfor _ in range(3):\n"
            "    if os.fork() == 0:\n        end = time.process_time() + 0.3\n"
            "        while time.process_time() < end:\n            pass\n        os._exit(0)\ntime.sleep(2)\n")
    with group.joining() as join:
        child = subprocess.Popen([sys.executable, "-c", code], preexec_fn=join)
    assert group.holds(child.pid)
    child.wait()
    assert group.seconds() >= 0.85  # three children of 0.3 s each, none of them waited for
    group.close()
    assert not group.group.exists()
