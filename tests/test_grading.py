"""The two sides of a grading, on workloads of known behaviour: the judge times, reads and decides; the worker
runs the submission and is believed only where it is checked."""

import contextlib
import dataclasses
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
import torch
from conftest import fake_check, grade_source

from autograder.core import grading
from autograder.core.grading import GradeContext, Policy, Session, StillRunning, grade_session
from autograder.core.protocol import PASSED, CheckFailed, Exercise, Tolerance
from autograder.core.speed import Timed, speed_check
from autograder.core.wire import Entry, Fn, JudgeEnd, Pool, WorkerGone, digest
from autograder.tools.paths import REPO

TOL = Tolerance(rtol=1e-6, atol=1e-6)


def sleepy_double(x):
    time.sleep(0.006)
    return x * 2


def _speed(ctx: GradeContext):
    timed = Timed(args=lambda gen, i: (torch.randn(8, generator=gen),), tol=TOL, min_block_s=0.02)
    return speed_check(ctx, sleepy_double, Entry("double"), timed, name="double")


FAKE = Exercise("99_fake", "a fake exercise", ("double",), (fake_check("speed", "speed", 1, _speed, ("double",),
                                                                  kind="speed"),), "a 6 ms sleep")


def test_the_judges_clock_measures_a_known_speedup_through_the_worker():
    report = grade_source("import time\ndef double(x):\n    time.sleep(0.002)\n    return x * 2\n", FAKE)
    result = report.result("speed")
    assert result.status == PASSED, result.message
    assert 2.0 < result.details["speedup"] < 3.3  # 6 ms over 2 ms, less the request's own cost
    assert result.details["boundary_s_per_block"] < 0.01  # the process boundary costs well under a block


def checked_double(x):
    if torch.isnan(x).any():
        raise FloatingPointError("a NaN")
    time.sleep(0.002)
    return x * 2


def _nan_guard(gen, args):
    x, = args
    x[int(torch.randint(x.numel(), (), generator=gen))] = float("nan")
    return (x,), "a NaN"


def _guarded_speed(ctx: GradeContext):
    timed = Timed(args=lambda gen, i: (torch.randn(8, generator=gen),), tol=TOL, min_block_s=0.02, guard=_nan_guard)
    return speed_check(ctx, checked_double, Entry("double"), timed, name="double")


GUARDED = Exercise("99_guarded", "a check in every call", ("double",), (
    fake_check("speed", "speed", 1, _guarded_speed, ("double",), kind="speed"),), "a checked 2 ms sleep")
CHECKED = """import sys, time, torch
def _check(x):
    if torch.isnan(x).any():
        raise FloatingPointError("a NaN")
def _timed():  # called by the grader's timed blocks (they run in autograder.core.blocks.run_block)
    return sys._getframe(2).f_code.co_name == "run_block"
"""


@pytest.mark.parametrize("body, verdict", [
    ("_check(x)", "passed"),  # honest: checks every call
    ("_timed() or _check(x)", "its check did not run there"),  # checks everywhere but in the timed path
    ("_pending.append(x)\n    if len(_pending) == 3:\n        [_check(p) for p in _pending]; _pending.clear()",
     "not at the call whose input must make it raise|its check did not run there"),  # late: three calls at a time
], ids=["checks_every_call", "skips_when_timed", "checks_late"])
def test_a_check_that_does_not_run_in_every_timed_call_meets_a_guard_block_it_cannot_tell_from_them(body, verdict):
    """01 (b)'s open hole of 2026-11-27: a function that drops its check only in the speed check's timed blocks
    (it reads its caller) gained speed. Untimed guard blocks, which the worker cannot tell from the timed ones, hide
    a call that must raise; the judge reads from its own memory where it raised."""
    source = CHECKED + f"_pending = []\ndef double(x):\n    {body}\n    time.sleep(0.0005)\n    return x * 2\n"
    result = grade_source(source, GUARDED).result("speed")
    if verdict == "passed":
        assert result.status == PASSED, result.message
        assert result.details["guard_blocks"] >= 1 and "where it must in" in result.message
    else:
        assert result.status == "failed" and re.search(verdict, result.message), result.message


def test_work_left_running_after_the_call_is_caught_as_a_late_write():
    """The output is written by a thread after the call returned: the clock stopped before it was done."""
    source = """
import threading, time
def double(x):
    out = torch.empty_like(x)
    def later():
        time.sleep(0.004)
        out.copy_(x * 2)
    threading.Thread(target=later).start()
    return out
import torch
"""
    result = grade_source(source, FAKE).result("speed")
    assert result.status == "failed"
    # caught as a late write, or (on a loaded machine) the write came after every read: the output was never there
    assert any(words in result.message for words in ("changed after it had returned", "differs", "non-finite"))


def _kept_speed(ctx: GradeContext):
    timed = Timed(args=lambda gen, i: (torch.randn(8, generator=gen),), tol=TOL, min_block_s=0.03, keep=True)
    return speed_check(ctx, sleepy_double, Entry("double"), timed, name="double")


KEPT = Exercise("99_kept", "outputs kept", ("double",), (fake_check("speed", "speed", 1, _kept_speed, ("double",),
                                                               kind="speed"),), "a 6 ms sleep")
STATIC_OUTPUT = """
import sys, time, torch
import autograder.core.blocks as _blocks
_worker = sys.modules["autograder.core.worker"]
_buf = {}
def double(x):  # one output buffer, overwritten by every call
    time.sleep(0.002)
    out = _buf.setdefault(x.shape, torch.empty_like(x))
    return out.copy_(x * 2)
"""


def test_outputs_a_block_must_keep_are_collected_into_slots_dealt_after_the_calls():
    """A red team's cheat (seventh): a function that overwrites one output buffer rebound the worker's run_block
    to copy every output out at once, so the kept outputs the judge read were each call's own (it passed). Now
    the worker learns where each kept output goes only after the calls, and in an order dealt then: copying
    early, even into the slots it would guess, leaves outputs where the judge does not read them."""
    assert grade_source("import time\ndef double(x):\n    time.sleep(0.002)\n    return x * 2\n",
                        KEPT).result("speed").status == PASSED
    assert "differs" in grade_source(STATIC_OUTPUT, KEPT).result("speed").message  # the plain overwrite
    copy_at_once = STATIC_OUTPUT + """
def _run_block(fn, calls, outs, *, chain=None, keep=False, finish=None, device=None):
    return _blocks.run_block(fn, calls, outs, chain=chain, keep=False, finish=finish, device=device)
_worker.run_block = _run_block
"""
    assert grade_source(copy_at_once, KEPT).result("speed").status == "failed"
    guess_the_slots = STATIC_OUTPUT + """
def _run_block(fn, calls, outs, *, chain=None, keep=False, finish=None, device=None):
    if outs is not None or not keep:
        return _blocks.run_block(fn, calls, outs, chain=chain, keep=keep, finish=finish, device=device)
    pool = next(p for p in _worker._SERVING.pools.values() if bool(p.reshape(-1)[0].isnan()))  # NaN: outputs
    for i, args in enumerate(calls):  # where slots were allocated, one after another
        out = fn(*args)
        pool.reshape(-1)[i * out.numel():(i + 1) * out.numel()].copy_(out.reshape(-1))
    return []
_worker.run_block = _run_block
_worker.collect = lambda kept, outs: None
"""
    result = grade_source(guess_the_slots, KEPT).result("speed")
    assert result.status == "failed" and "differs" in result.message, result.line()


def test_a_cache_keyed_on_anything_never_hits_because_every_call_gets_new_inputs():
    source = """
import time
seen, hits = {}, [0]
def double(x):
    key = (x.data_ptr(), x._version, float(x.sum()))
    if key in seen:
        hits[0] += 1
        return seen[key]
    time.sleep(0.002)
    seen[key] = x * 2
    return seen[key]
"""
    with tempfile.TemporaryDirectory() as scratch:
        session = Session.spawn(timeout=120, scratch=Path(scratch))
        session.timeout = 120
        try:
            report = grade_session(FAKE, session, device=torch.device("cpu"), secret="t",
                                   policy=Policy(cpu_gate=1.5), sources=[source])
            hits = session.invoke(Fn("autograder.core.blocks:same"), Entry("hits")).value["value"]
        finally:
            session.close()
    assert report.result("speed").status == PASSED
    assert hits == [0]


@contextlib.contextmanager
def _loaded(source: str, entry_points: list[str] = ()):
    """A real worker process (Session.spawn) with ``source`` loaded; closed, with all it started, at the end."""
    with tempfile.TemporaryDirectory() as scratch:
        session = Session.spawn(timeout=60, scratch=Path(scratch))
        try:
            session.call("hello")
            session.call("load", sources=[source], entry_points=list(entry_points))
            yield session
        finally:
            session.close()


def test_the_worker_is_paused_while_the_baseline_runs():
    source = "import threading, time\nticks = []\ndef tick():\n    while True:\n        ticks.append(time.time())\n" \
             "        time.sleep(0.001)\nthreading.Thread(target=tick, daemon=True).start()\n"
    with _loaded(source, ["ticks"]) as session:
        session.pause()
        start = time.time()
        time.sleep(0.3)
        stop = time.time()
        session.resume()
        time.sleep(0.05)
        ticks = session.invoke(Fn("autograder.core.blocks:same"), Entry("ticks")).value["value"]
    assert not [t for t in ticks if start + 0.02 < t < stop - 0.02]  # not one tick while paused
    assert any(t > stop for t in ticks)  # and ticking again after


def test_a_child_that_left_the_workers_process_group_is_paused_too(tmp_path):
    """A red team's cheat: a forked child calls setsid() (out of the group the judge stops) and loads the machine
    only while the worker is stopped, i.e. while the baseline is timed. The pause stops the whole tree."""
    beat = tmp_path / "beat"
    source = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True:\n"  # each beat replaces the
              f"        open({str(beat)!r} + '.new', 'w').write(str(time.time()))\n"  # file whole: never read half
              f"        os.replace({str(beat)!r} + '.new', {str(beat)!r})\n        time.sleep(0.005)\n")
    with _loaded(source) as session:
        time.sleep(0.3)
        assert beat.exists()
        session.pause()
        time.sleep(0.05)
        paused_at = time.time()
        time.sleep(0.3)
        last = float(beat.read_text() or 0)
        session.resume()
        time.sleep(0.2)
        after = float(beat.read_text() or 0)
    assert last < paused_at, "the escaped child kept running while the worker was paused"
    assert after > paused_at + 0.3  # and runs again after


def _task_states(pids) -> list[str]:
    states = []
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else ():
            try:
                states.append(open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()[0])
            except OSError:
                pass
    return states


def test_a_double_forked_process_is_paused_and_killed_with_the_worker(tmp_path):
    """A red team's cheat: a grandchild whose parent exits is reparented out of the worker's tree (to the host's
    init where the worker has no PID namespace: unsandboxed, or on a GPU) and loaded the CPU only while the judge
    timed the baseline. The judge adopts such orphans (a child subreaper): pause stops them, the end kills them."""
    beat, pid_file = tmp_path / "beat", tmp_path / "pid"
    source = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              f"        open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n        while True:\n"
              f"            open({str(beat)!r} + '.new', 'w').write(str(time.time()))\n"
              f"            os.replace({str(beat)!r} + '.new', {str(beat)!r})\n            time.sleep(0.005)\n"
              "    os._exit(0)\n")
    with _loaded(source) as session:
        time.sleep(0.5)
        orphan = int(pid_file.read_text())
        session.pause()
        time.sleep(0.05)
        paused_at = time.time()
        time.sleep(0.3)
        last = float(beat.read_text() or 0)
        assert session.resume() <= 0.02
    assert last < paused_at, "the double-forked process kept running while the worker was paused"
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{orphan}") or _task_states([orphan]) in ([], ["Z"]), "it outlived the grading"


def test_the_pause_waits_until_a_process_inside_a_long_system_call_has_stopped():
    """A red team's cheat: a process inside a long system call (mmap with MAP_POPULATE of many GiB of read-only
    zero pages) runs on after SIGSTOP until the call returns, seconds of CPU while the baseline is timed. The pause
    returns only once every thread of the submission is stopped, and nothing of it is charged CPU time after."""
    source = ("import mmap, os\nif os.fork() == 0:\n    while True:\n"
              "        m = mmap.mmap(-1, 4 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE, "
              "prot=mmap.PROT_READ)\n        m.close()\n")
    with _loaded(source) as session:
        time.sleep(0.5)
        for _ in range(3):
            session.pause()
            states = _task_states(session.processes())
            time.sleep(0.2)
            ran = session.resume()
            assert states and set(states) <= set("TtZX"), states
            assert ran <= 0.02, f"{ran:.2f} s of CPU while paused"
            time.sleep(0.1)


def test_processes_that_keep_appearing_as_fast_as_they_are_stopped_void_the_pause(monkeypatch):
    """A red team's process forked and let its parent exit every millisecond: the judge found it by pid, and by the
    time it signalled that pid the process had moved on to a new one, so it ran on through every pause unseen.
    New processes that keep appearing however many times the judge looks now void the measurement."""
    with _loaded("") as session:
        pids = iter(range(10**7, 10**7 + 1000))  # pids no process has: each look finds a new one
        monkeypatch.setattr(session, "processes", lambda: {session.process.pid, next(pids)})
        with pytest.raises(StillRunning, match="kept appearing"):
            session.pause()
        session.resume()


def test_a_process_that_forks_and_exits_in_a_loop_never_runs_unseen_while_paused(tmp_path):
    """The red team's process itself (a small one, hopping as fast as it can for two seconds): either the pause
    catches up with it and it is stopped, or (faster than the judge looks, as on a quiet machine) the pause is void.
    It never runs on through a pause that stands."""
    count = tmp_path / "hops"
    hop = (f"import os, time\nos.setsid()\nfd = os.open({str(count)!r}, os.O_WRONLY | os.O_CREAT)\nn = 0\n"
           "end = time.time() + 2\nwhile time.time() < end:\n    if os.fork():\n        os._exit(0)\n    n += 1\n"
           "    os.pwrite(fd, b'%12d' % n, 0)\n")  # a small process: a worker's own fork copies torch's pages
    source = f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-S', '-c', {hop!r}])\n"
    with _loaded(source) as session:
        time.sleep(0.3)
        try:
            session.pause()
        except StillRunning as err:
            assert "kept appearing" in str(err)
        else:
            before = count.read_text()
            time.sleep(0.3)
            assert count.read_text() == before, "it hopped on while the pause stood"
        finally:
            session.resume()
        time.sleep(2.2)  # its end: the grading's kill reaps what is left of it


def test_a_process_given_the_pid_of_one_of_the_judges_own_children_is_still_the_submissions():
    """A red team killed a child of the judge's that the judge leaves out of the submission's processes (a worker
    template), forked until one of its own processes got that pid, and had it adopted by the judge: it ran through
    every pause and kill. The judge's own children are known by pid and start time, and a reused pid is not one."""
    with _loaded("") as session:
        other = subprocess.Popen(["sleep", "30"])  # a child of the judge's, not the submission's
        try:
            assert other.pid in session.processes()  # started after the worker: taken for an orphan of its
            start = grading._start_time(other.pid)
            session.judge_children.add((other.pid, start))
            assert other.pid not in session.processes()
            session.judge_children = {(other.pid, start + 1)}  # the same pid, another process
            assert other.pid in session.processes()
        finally:
            other.kill()
            other.wait()


SCHEDULING = r"""
import json, os, sys
os.environ["COURSE_SANDBOX"] = "none"
sys.path.insert(0, "tests")
from conftest import grade_source
from test_grading import FAKE
source = ("import os, time\nos.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))\n"
          "def double(x):\n    time.sleep(0.002)\n    return x * 2\n")
result = grade_source(source, FAKE).result("speed")
print(json.dumps([result.status, result.message, os.sched_getscheduler(0)]))
"""


def test_a_submission_that_changes_the_judges_scheduling_voids_the_measurement():
    """A process of the judge's user can set the judge's scheduling from outside (a red team's worker made its
    judge SCHED_IDLE on one CPU: on a busy machine the baseline it times slows down, and the speedup grows). The
    judge compares its scheduling with the grading's start before each measurement of its own. In a judge process
    of its own: this test process keeps its scheduling."""
    done = subprocess.run([sys.executable, "-c", SCHEDULING], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-3000:]
    status, message, policy = json.loads(done.stdout.strip().splitlines()[-1])
    assert policy == os.SCHED_IDLE  # the change took effect
    assert status == "inconclusive" and "scheduling" in message, (status, message)


def test_the_judge_never_unpickles_what_the_worker_sends():
    ours, theirs = socket.socketpair()
    end = JudgeEnd(Connection(ours.detach()))
    peer = Connection(theirs.detach())
    import pickle

    peer.send_bytes(pickle.dumps({"ok": True}))  # a pickle could run code when loaded
    with pytest.raises(WorkerGone, match="not JSON"):
        end.receive(time.monotonic() + 5)
    peer.send_bytes(json.dumps([1, 2]).encode())
    with pytest.raises(WorkerGone, match="not a JSON object"):
        end.receive(time.monotonic() + 5)
    peer.send_bytes(b"[" * 100_000)  # nesting deep enough to break the parser
    with pytest.raises(WorkerGone, match="not JSON"):
        end.receive(time.monotonic() + 5)
    with pytest.raises(TimeoutError):
        end.receive(time.monotonic() + 0.1)


def test_a_digest_changes_with_any_write_and_reads_every_byte():
    pool = Pool(5000, torch.float32, "cpu")
    pool.unlink()
    pool.tensor.normal_()
    before = digest(pool.tensor, key=7)
    assert digest(pool.tensor, key=7) == before  # the same bytes and key: the same digest
    pool.tensor[4999] += 1  # in the remainder past the last full row
    assert digest(pool.tensor, key=7) != before
    pool.tensor[4999] -= 1
    pool.tensor[10] += 1
    assert digest(pool.tensor, key=7) != before
    assert digest(torch.full((3,), float("nan")), 1) == digest(torch.full((3,), float("nan")), 1)  # NaN is exact too


def test_a_change_that_keeps_the_sum_changes_the_digest():
    """Red team 2026-11-25 (sum_collision_memo): inputs rewritten with others of the same float32 sum kept a plain
    sum digest; a keyed digest of unknown weights does not stay put."""
    x = torch.randint(-100, 100, (8192,), generator=torch.Generator().manual_seed(0)).float()  # exact sums
    balanced = x.clone()
    balanced[:4096], balanced[4096:] = x[4096:].clone(), x[:4096].clone()  # swapped halves: the same sum
    assert float(balanced.sum()) == float(x.sum())
    assert all(digest(balanced, k) != digest(x, k) for k in range(5))
    ints = torch.arange(10, dtype=torch.int64)
    assert digest(ints, 3) != digest(ints.flip(0), 3)


def test_a_patched_harness_that_skips_writing_outputs_leaves_nan_and_fails():
    source = ("import autograder.core.blocks as b\nb.copy_output = lambda *a, **k: None\n"
              "def double(x):\n    return x * 2\n")
    result = grade_source(source, FAKE).result("speed")
    assert result.status == "failed" and "non-finite" in result.message


def test_a_check_error_in_the_worker_does_not_end_the_grading():
    def two(ctx):
        return ctx.call(Entry("double"), 3, what="double(3)").value["value"] == 6 and "six"

    exercise = Exercise("99_fake", "fake", ("double",), (
        fake_check("raises", "raises", 1, lambda ctx: ctx.call(Entry("boom"), what="boom()"), ("double",)),
        fake_check("after", "after", 1, two, ("double",))), "nothing")
    report = grade_source("def boom():\n    raise ValueError('no')\ndef double(x):\n    return 2 * x\n", exercise)
    assert report.result("raises").status == "failed" and "ValueError: no" in report.result("raises").message
    assert report.result("after").status == PASSED


def test_a_load_past_the_exercises_compile_budget_is_stopped_at_the_budget_and_every_check_says_so():
    """Seen on an H200: a submission that compiled 32 graphs at import (to warm the compile cache) loaded for 149 s
    of a 150 s grading, and every check said "grading timed out: it was idle (a hang?)". An exercise whose compile
    budget charges loading stops the load at the budget, on the judge's clock, and says which budget it broke."""
    exercise = Exercise("99_fake", "fake", ("double",), (
        fake_check("first", "first", 1, lambda ctx: "never", ("double",)),
        fake_check("second", "second", 1, lambda ctx: "never", ("double",))), "nothing", load_budget=lambda: 3.0)
    start = time.monotonic()
    report = grade_source("import time\ntime.sleep(60)\ndef double(x):\n    return 2 * x\n", exercise)
    assert time.monotonic() - start < 30
    for check in ("first", "second"):
        result = report.result(check)
        assert result.status == "failed"
        assert "loading your code ran past 3 s, the exercise's whole compile budget" in result.message, result.message
        assert "it was idle" in result.message  # then what the operating system showed of the worker
    quick = grade_source("def double(x):\n    return 2 * x\n", exercise)  # a load within the budget is graded
    assert quick.result("first").status == PASSED, quick.result("first").message


def test_a_function_that_never_returns_costs_its_own_checks_not_the_next_ones():
    """Seen in a class on the GPU: a benchmark() that ran 1000x too long (every clock slowed) was killed at its
    call's limit, and the other function's checks failed with it ("the worker did not answer"). The checks after
    a dead worker get a fresh one, with the submission loaded again; the grading's own deadline still bounds it."""
    def two(ctx):
        return ctx.call(Entry("double"), 3, what="double(3)").value["value"] == 6 and "six"

    hang = fake_check("hangs", "hangs", 1, lambda ctx: ctx.call(Entry("hang"), what="hang()", timeout=2), ("hang",))
    exercise = Exercise("99_fake", "fake", ("double", "hang"), (
        hang, fake_check("after", "after", 1, two, ("double",)), dataclasses.replace(hang, id="again"),
        dataclasses.replace(hang, id="third"), fake_check("last", "last", 1, two, ("double",))), "nothing")
    report = grade_source("import time\ndef hang():\n    time.sleep(600)\ndef double(x):\n    return 2 * x\n",
                          exercise)
    assert "did not answer within 2 s: it was idle, waiting on something" in report.result("hangs").message
    assert report.result("after").status == PASSED, report.result("after").message
    assert report.result("again").status == report.result("third").status == "failed"
    assert report.environment["worker_restarts"] == 2  # at most two fresh workers per grading: the last check
    assert report.result("last").status == "failed" and "did not answer" in report.result("last").message


def test_a_restarted_worker_starts_in_a_folder_the_dead_one_never_saw(tmp_path):
    """A red team's 8/8 for 0/8 of work: the first worker linked the next worker's log (and the cache folder the
    judge copies into) in its own folder to a file outside the sandbox, then died; the judge, opening the log for
    the fresh worker, created that file as itself, and the fresh worker printed a module into it that the judge's
    process imported at exit and that rewrote the report. The fresh worker gets a folder of its own now."""
    target = tmp_path / "planted.py"
    source = f"""import os, sys
def plant():
    for name in ("worker.log", "worker-1.log", "worker-2.log", "cache", "restarted"):
        try:
            os.symlink({str(target)!r}, name)
        except OSError:
            pass
    os._exit(3)
def where():
    print("PAYLOAD = 1")  # into the log: wherever the judge opened it
    return [os.getcwd(), os.path.exists("restarted")]
"""
    exercise = Exercise("99_fake", "fake", ("plant", "where"), (
        fake_check("plants", "plants", 1, lambda ctx: ctx.call(Entry("plant"), what="plant()"), ("plant",)),
        fake_check("after", "after", 1, lambda ctx: str(ctx.call(Entry("where"), what="where()").value["value"]),
              ("where",))), "nothing")
    report = grade_source(source, exercise)
    assert report.result("plants").status == "failed" and report.environment["worker_restarts"] == 1
    assert report.result("after").status == PASSED, report.result("after").message
    cwd, saw_the_link = eval(report.result("after").message)  # noqa: S307 (our own repr of a list)
    # named like any first worker's folder (a red team's worker read "restart" in its cwd and knew its import
    # would be charged to nothing)
    assert not saw_the_link and Path(cwd).name.startswith("autograder-") and "restart" not in cwd
    assert not os.path.lexists(target), "the judge wrote through a link the dead worker planted"
    assert not Path(cwd).exists()  # the restart's folder went with the grading


def test_what_a_submission_writes_cannot_move_the_terminals_cursor_in_the_report():
    """A red team's exception message held escape sequences that moved the cursor up and printed a fake "3/3"
    and "[PASS]" over the failed check's line in a terminal. Every control character from the worker is shown as
    an escape instead; the failure itself still says what was raised."""
    fake = "\x1b[1A\x1b[2K01: 3/3 points\x1b[1B\x1b[2K[PASS] boom (1/1)\x1b[8m\u202e"
    exercise = Exercise("99_fake", "fake", ("boom",), (
        fake_check("boom", "boom", 1, lambda ctx: ctx.call(Entry("boom"), what="boom()"), ("boom",)),), "nothing")
    report = grade_source(f"def boom():\n    raise ValueError({fake!r})\n", exercise)
    text = "\n".join(report.lines())
    assert report.result("boom").status == "failed" and "ValueError" in text
    assert not any(ord(c) < 32 and c not in "\n\t" or c == "\u202e" for c in text), repr(text)
    assert "\\x1b[1A" in text  # shown, not obeyed


def test_the_submission_computes_with_the_threads_the_baseline_has():
    """The worker's torch uses the judge's thread count, not OpenMP's default of every core: the eager baseline
    and the candidate share a machine on equal terms (and a class's per-slot cores stay the slot's)."""
    seen = {}

    def threads(ctx):
        seen["worker"] = ctx.call(Entry("threads"), what="threads()").value["value"]
        return "read"

    exercise = Exercise("99_fake", "fake", ("threads",), (fake_check("threads", "threads", 1, threads, ("threads",)),),
                        "nothing")
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # OpenMP's default would be every core (this test needs two or more)
    try:
        report = grade_source("import torch\ndef threads():\n    return torch.get_num_threads()\n", exercise)
    finally:
        torch.set_num_threads(before)
    assert report.result("threads").status == PASSED, report.result("threads").message
    assert seen["worker"] == 1


@pytest.mark.skipif("PYTEST_XDIST_WORKER" not in os.environ, reason="one test process has every core")
def test_each_test_process_computes_on_its_share_of_the_cores():
    """Under pytest-xdist the test processes (and the gradings they start, which take the judge's thread count)
    together ask for no more threads than there are cores: OpenMP waiting on a busy core made an honest compiled
    server 16-30x slower than eager on CI (conftest.py)."""
    processes, cores = int(os.environ["PYTEST_XDIST_WORKER_COUNT"]), os.cpu_count() or 1
    assert torch.get_num_threads() * processes <= max(cores, processes), (
        f"{processes} test processes with {torch.get_num_threads()} threads each on {cores} cores "
        f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')})")


def test_a_submission_that_allocates_past_the_memory_limit_fails_in_its_own_process(monkeypatch):
    """The worker starts under RLIMIT_DATA: 3 GiB asked of a 1 GiB limit is a MemoryError in the worker, reported
    as that check's failure; the grading (and the machine) goes on."""
    monkeypatch.setenv("COURSE_MEMORY_LIMIT", "1G")
    exercise = Exercise("99_fake", "fake", ("double", "hog"), (
        fake_check("hog", "hog", 1, lambda ctx: ctx.call(Entry("hog"), what="hog()"), ("hog",)),
        fake_check("after", "after", 1, lambda ctx: ctx.call(Entry("double"), 3, what="double(3)").value["value"] == 6
              and "six", ("double",))), "nothing")
    report = grade_source("def hog():\n    return len(bytearray(3 << 30))\ndef double(x):\n    return 2 * x\n",
                          exercise)
    assert report.result("hog").status == "failed" and "MemoryError" in report.result("hog").message
    assert report.result("after").status == PASSED


def test_the_memory_limit_reads_sizes_and_refuses_nonsense(monkeypatch):
    from autograder.core import sandbox

    for text, gpu, limit in (("512M", False, 2**29), ("24g", True, 24 * 2**30), ("16GiB", False, 16 * 2**30),
                             ("none", False, None), ("", False, 16 * 2**30), ("", True, None)):
        monkeypatch.setenv(sandbox.MEMORY_ENV, text)
        assert sandbox.memory_limit(gpu) == limit, text
    for bad in ("lots", "12X", "1M"):
        monkeypatch.setenv(sandbox.MEMORY_ENV, bad)
        with pytest.raises(sandbox.SandboxUnavailable, match=sandbox.MEMORY_ENV):
            sandbox.memory_limit(False)


def test_checkfailed_carries_its_details():
    err = CheckFailed("slow", "look", {"speedup": 1.0})
    assert err.details == {"speedup": 1.0} and err.reason == "slow" and "Hint: look" in str(err)


def test_workers_share_one_warm_compile_cache_outside_the_judges_and_the_working_folder(monkeypatch):
    """Unset, the worker cache is one absolute folder in the temp dir (warm across gradings); a relative path
    would land in whatever folder the judge runs from and start every grading cold."""
    from autograder.core.grading import worker_cache, worker_env

    monkeypatch.delenv("COURSE_WORKER_CACHE", raising=False)
    cache = worker_cache()
    assert cache.is_absolute() and cache.parent == Path(tempfile.gettempdir()), cache
    assert worker_env()["TORCHINDUCTOR_CACHE_DIR"] == str(cache / "inductor")
    monkeypatch.setenv("COURSE_WORKER_CACHE", "/some/where")
    assert worker_cache() == Path("/some/where")


JUDGE = """
import os, subprocess, sys
from autograder.core import sandbox
if sys.argv[1] == "refuse":
    assert sandbox.refuse_tracing(gpu=False)
probe = '''
import sys
pid = int(sys.argv[1])
try:
    seen = "environ read" if b"s3cret" in open(f"/proc/{pid}/environ", "rb").read() else "environ without it"
except OSError as err:
    seen = f"environ refused ({type(err).__name__})"
try:  # the permission ptrace's attach needs (PTRACE_MODE_ATTACH), without stopping the judge
    open(f"/proc/{pid}/mem", "rb").close()
    seen += ", memory opened"
except OSError as err:
    seen += f", memory refused ({type(err).__name__})"
print(seen)
'''
print(subprocess.run([sys.executable, "-c", probe, str(os.getpid())], capture_output=True, text=True).stdout.strip())
"""


@pytest.mark.skipif(not shutil.which("setpriv"), reason="setpriv (util-linux) runs the judge without capabilities")
@pytest.mark.parametrize("refuse", [True, False], ids=["judge refuses tracing", "control: an ordinary judge"])
def test_a_process_of_the_judges_user_can_neither_read_nor_trace_the_judge(refuse):
    """A GPU worker shares the host's PID namespace (CUDA IPC), so it can name the judge's pid. The judge makes
    itself non-dumpable: a process of the same user without CAP_SYS_PTRACE can then neither attach to it nor read
    its /proc files (its environment, its memory). Both run without capabilities (setpriv), as under a non-root
    grader."""
    done = subprocess.run(["setpriv", "--bounding-set=-all", "--inh-caps=-all", sys.executable, "-c", JUDGE,
                           "refuse" if refuse else "ordinary"], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO), "JUDGE_SECRET": "s3cret"})
    assert done.returncode == 0, done.stderr
    if refuse:
        assert done.stdout.strip() == "environ refused (PermissionError), memory refused (PermissionError)", done.stdout
    else:  # what the refusal takes away
        assert done.stdout.strip() == "environ read, memory opened", done.stdout


def test_a_file_a_student_could_shape_is_read_only_if_it_is_a_regular_file_reached_without_links(tmp_path):
    """The unit copies submitted and executed notebooks out of folders a student's code could write: a link (to
    the secret, another student's work, /dev/zero), a linked folder on the way, or a huge file is refused."""
    from autograder.tools.grade_student import read_regular

    root = tmp_path / "scratch"
    (root / "a").mkdir(parents=True)
    (root / "a" / "nb.ipynb").write_text("{}")
    assert read_regular(root / "a" / "nb.ipynb", root) == b"{}"
    secret = tmp_path / "secret"
    secret.write_text("s3cret")
    (root / "a" / "link.ipynb").symlink_to(secret)
    (root / "linked").symlink_to(tmp_path)  # a folder on the way
    (root / "zero.ipynb").symlink_to("/dev/zero")
    for path in (root / "a" / "link.ipynb", root / "linked" / "secret", root / "zero.ipynb"):
        with pytest.raises(OSError):
            read_regular(path, root)
    os.mkfifo(root / "pipe.ipynb")  # opened without blocking, then refused: not a regular file
    with pytest.raises(OSError, match="not a regular file"):
        read_regular(root / "pipe.ipynb", root)
    (root / "big.ipynb").write_bytes(b"x" * 2048)
    with pytest.raises(OSError, match="over"):
        read_regular(root / "big.ipynb", root, limit=1024)


def test_the_judge_reads_the_workers_log_only_as_a_regular_file(tmp_path):
    """The log sits in the worker's writable scratch: a worker that swaps it for a link to the judge's environment
    (and then dies, so that the judge quotes the log's tail in the report) gets nothing quoted."""
    from autograder.core.grading import _log_tail

    log = tmp_path / "worker.log"
    log.write_text("".join(f"line {i}\n" for i in range(10)))
    assert _log_tail(log) == [f"line {i}" for i in range(5, 10)]
    log.unlink()
    log.symlink_to("/proc/self/environ")
    assert _log_tail(log) == []
    log.unlink()
    os.mkfifo(log)
    assert _log_tail(log) == ["(the worker's log was replaced by something that is not a file: not read)"]


def test_a_judge_names_the_modules_it_imported_after_its_worker_started_but_not_its_own_kernels():
    import sys

    from autograder.core.grading import late_imports

    before = set(sys.modules) - {"colorsys"}
    sys.modules.pop("colorsys", None)
    import colorsys  # noqa: F401 - a module imported "late"

    sys.modules["torch._inductor.runtime.compile_tasks.cabc123"] = sys.modules["colorsys"]  # a generated kernel
    try:
        assert late_imports(before) == ["colorsys"]
    finally:
        del sys.modules["torch._inductor.runtime.compile_tasks.cabc123"]


def test_a_request_out_of_time_says_what_the_worker_was_doing_as_the_operating_system_shows_it():
    """A max-autotune compile that outlasted the call's limit was reported as "a hang in your code?" (a red team,
    2026-11-27, on an H200). The judge now looks before it kills: compile workers of torch.compile running (a
    compile), cores busy (a loop or a long compile), or nothing running (a hang)."""
    busy = fake_check("busy", "busy", 1, lambda ctx: ctx.call(Entry("spin"), what="spin()", timeout=2), ("spin",))
    compiling = fake_check("compiling", "compiling", 1,
                           lambda ctx: ctx.call(Entry("compile_workers"), what="compile_workers()", timeout=3),
                           ("compile_workers",))
    exercise = Exercise("99_fake", "fake", ("spin", "compile_workers"), (busy, compiling), "nothing")
    source = ("import subprocess, sys, time\ndef spin():\n    while True:\n        pass\n"
              "def compile_workers():\n"  # a process whose command line is an Inductor compile worker's, busy
              "    subprocess.Popen([sys.executable, '-c', 'while True: pass', 'torch/_inductor/compile_worker'])\n"
              "    time.sleep(600)\n")
    report = grade_source(source, exercise)
    assert "did not answer within 2 s: it was running" in report.result("busy").message
    message = report.result("compiling").message
    assert "it was compiling: 1 compile worker process(es)" in message and "COURSE_CALL_TIMEOUT" in message


def test_a_compile_that_outlasts_a_requests_limit_goes_on_but_a_hang_and_the_gradings_deadline_do_not(monkeypatch):
    """Issue 38 item 5: max-autotune's first compile of 02's training step ran past 330 s on an H100, beyond a
    request's limit. While the operating system shows torch.compile's compile workers among the worker's processes
    and cores busy, the judge waits on, up to the grading's deadline, and says what it saw; an idle worker (compile
    workers parked, nothing running) is still stopped at the request's limit, once it has been quiet for
    COMPILE_LULL_S seconds (3 here, to keep the test short)."""
    monkeypatch.setenv("COURSE_CALL_TIMEOUT", "2")
    monkeypatch.setattr(grading, "COMPILE_LULL_S", 3)
    compiles = fake_check("compiles", "compiles", 1, lambda ctx: str(ctx.call(Entry("compile_for"), 6,
                                                                              what="compile_for(6)").value),
                          ("compile_for",))
    idle = fake_check("idle", "idle", 1, lambda ctx: ctx.call(Entry("parked"), what="parked()"), ("parked",))
    endless = fake_check("endless", "endless", 1, lambda ctx: ctx.call(Entry("compile_for"), 600, what="x"),
                         ("compile_for",))
    exercise = Exercise("99_fake", "fake", ("compile_for", "parked"), (compiles, idle), "nothing")
    source = ("import subprocess, sys, time\n"
              "WORKER = [sys.executable, '-c', 'while True: pass', 'torch/_inductor/compile_worker']\n"
              "def compile_for(seconds):\n"  # a compile worker and the main process, both busy, for `seconds`
              "    child = subprocess.Popen(WORKER)\n"
              "    end = time.monotonic() + seconds\n"
              "    while time.monotonic() < end:\n"
              "        pass\n"
              "    child.kill()\n"
              "    return seconds\n"
              "def parked():\n"  # a compile worker pool left from an earlier compile, idle, and a hang
              "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', 'compile_worker'])\n"
              "    time.sleep(600)\n"
              "def never_called(model):\n"
              "    import torch\n"
              "    return torch.compile(model, mode='max-autotune')\n")
    report = grade_source(source, exercise, deadline=60)
    assert report.result("compiles").passed, report.result("compiles").message
    assert "did not answer within 2 s: it was idle" in report.result("idle").message
    report = grade_source(source, Exercise("99_fake", "fake", ("compile_for",), (endless,), "nothing"), deadline=12)
    message = report.result("endless").message
    assert message.startswith("grading timed out after 12 s: it was compiling"), message
    assert "compiling past its own limit" in message and 'mode="max-autotune"' in message, message
    # where the grading's time went: earlier requests, then this one (an honest grading on a loaded machine can
    # spend its limit in earlier checks; the last second's activity alone does not say so)
    assert re.search(r"Before this request the grading's requests took \d+ s \(the longest, .+, \d+ s\); this "
                     r"one had run \d+ s", message), message


def test_a_compile_with_quiet_seconds_past_the_requests_limit_is_waited_for(monkeypatch):
    """Issue 38 item 5 on an H200 (2026-11-27): 02's max-autotune step was stopped at 395 s of its first compile,
    in a second when no compile worker was busy (a search times candidates on the GPU, its pool idles between
    phases), though the compile went on: a second sample showed it busy. A compile whose workers are quiet for a
    few seconds at a time is waited for; one quiet for COMPILE_LULL_S seconds is not (the parked test above)."""
    monkeypatch.setenv("COURSE_CALL_TIMEOUT", "2")
    bursts = fake_check("bursts", "bursts", 1, lambda ctx: str(ctx.call(Entry("compile_in_bursts"), 12,
                                                                        what="compile_in_bursts(12)").value),
                        ("compile_in_bursts",))
    exercise = Exercise("99_fake", "fake", ("compile_in_bursts",), (bursts,), "nothing")
    source = ("import subprocess, sys, time\n"
              "def compile_in_bursts(seconds):\n"  # a compile worker pool, idle; the main process quiet 4 s, busy 1 s
              "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', 'compile_worker'])\n"
              "    end = time.monotonic() + seconds\n"
              "    while time.monotonic() < end:\n"
              "        time.sleep(4)\n"
              "        busy = time.monotonic() + 1\n"
              "        while time.monotonic() < busy:\n"
              "            pass\n"
              "    child.kill()\n"
              "    return seconds\n")
    report = grade_source(source, exercise, deadline=60)
    assert report.result("bursts").passed, report.result("bursts").message


def test_a_submission_that_asks_for_max_autotune_is_given_the_longer_limit_unless_one_was_set(tmp_path,
                                                                                             monkeypatch):
    """max-autotune's search takes minutes on cold caches (02's first step: more than 470 s on an H100), so a
    grading whose text asks for it gets 1800 s instead of 600; read from the text (AST), never for a verdict;
    an explicit limit (--timeout, COURSE_SUBMISSION_TIMEOUT) is kept as given."""
    from autograder.core.submission import grading_limit
    from autograder.exercises import get_exercise
    from autograder.selfcheck import submission_timeout

    assert grading_limit(["m = torch.compile(model)"]) == 600
    assert grading_limit(["m = torch.compile(model, mode='max-autotune-no-cudagraphs')"]) == 1800
    assert grading_limit(["m = torch.compile(model, options={'max_autotune': True})"]) == 1800
    assert grading_limit(["# mode='max-autotune' is for later\nm = torch.compile(model)"]) == 600  # text, not code
    searching = tmp_path / "searching.py"
    searching.write_text("import torch\n\ndef make_train_step(model, optimizer):\n"
                         "    return torch.compile(model, mode='max-autotune')\n")
    monkeypatch.delenv("COURSE_SUBMISSION_TIMEOUT", raising=False)
    assert submission_timeout(searching) == 1800 and submission_timeout() == 600
    monkeypatch.setenv("COURSE_SUBMISSION_TIMEOUT", "900")
    assert submission_timeout(searching) == 900
    exercise = get_exercise("02_compile_pipeline")  # only the grading's limit is looked at: no check needs to pass
    assert grading.grade_file(exercise, searching, only=["hunter_graph"]).environment["limit_s"] == 1800
    assert grading.grade_file(exercise, searching, only=["hunter_graph"],
                              policy=Policy(timeout=300)).environment["limit_s"] == 300


def test_an_error_wrapped_by_dynamo_is_shown_with_its_cause():
    """A red team's learner-side finding (2026-11-27): an error in a learner's backend showed as "...raised:" and
    nothing else, because only the first line of Dynamo's wrapped message was kept."""
    err = grading.RemoteError({"type": "BackendCompilerFailed", "message": (
        "backend='<GraphRecorder object>' raised:\nTypeError: find_nodes() missing 1 required keyword-only "
        "argument: 'target'\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace")})
    assert err.first_line() == ("backend='<GraphRecorder object>' raised: TypeError: find_nodes() missing 1 required "
                                "keyword-only argument: 'target'")
    assert grading.RemoteError({"type": "ValueError", "message": "bad\nmore"}).first_line() == "bad"


def test_a_judges_startup_is_its_process_age_when_it_begins_grading():
    """startup_s (a class's unit times split a judge's life into start, grading and ending with it) is the process's
    age by the kernel's clock: a process that waits 0.5 s before asking reports at least that."""
    code = "import time; time.sleep(0.5); from autograder.core.grading import process_age_s; print(process_age_s())"
    age = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                               env={**os.environ, "PYTHONPATH": str(REPO)}).stdout)
    assert 0.5 <= age < 30


def test_a_judges_private_compile_caches_are_removed_when_it_ends():
    """isolate_judge_caches (every judge on a GPU) gives the judge a fresh folder for its own compiles; the folder
    goes when the judge process ends, so a class's 300 x 6 judges leave no kernels behind in /tmp."""
    code = ("import os, pathlib; from autograder.core.grading import isolate_judge_caches; p = isolate_judge_caches(); "
            "(p / 'inductor').mkdir(); (p / 'inductor' / 'kernel.py').write_text('x'); "
            "assert os.environ['TORCHINDUCTOR_CACHE_DIR'] == str(p / 'inductor'); print(p)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    private = Path(out.stdout.strip())
    assert private.name.startswith("autograder-judge-") and not private.exists()


def test_on_a_gpu_the_timed_rounds_run_the_judge_and_the_serving_thread_on_one_core():
    """Both sides' timed blocks run on one CPU (they take turns), so a slow core slows both; afterwards each gets its
    CPUs back, and a serving thread that moved itself off that core voids the measurement."""
    from autograder.core.protocol import Inconclusive
    from autograder.core.speed import shared_core

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nothing to move between")
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        session = dataclasses.make_dataclass("S", ["scheduling", "serving_pid"])(
            grading.judge_scheduling(), lambda: server.pid)
        ctx = dataclasses.make_dataclass("C", ["session", "cuda"])(session, True)
        mine, theirs = os.sched_getaffinity(0), os.sched_getaffinity(server.pid)
        with shared_core(ctx):
            assert os.sched_getaffinity(0) == os.sched_getaffinity(server.pid) and len(os.sched_getaffinity(0)) == 1
            assert grading.judge_scheduling() == session.scheduling  # the baseline's pause does not void itself
        assert os.sched_getaffinity(0) == mine and os.sched_getaffinity(server.pid) == theirs
        with pytest.raises(Inconclusive, match="moved off the CPU"), shared_core(ctx):
            os.sched_setaffinity(server.pid, theirs)  # the submission moves its serving thread
        assert os.sched_getaffinity(0) == mine
        with shared_core(dataclasses.replace(ctx, cuda=False)):  # on a CPU nothing is pinned
            assert os.sched_getaffinity(0) == mine
    finally:
        server.kill()
        server.wait()


THREADS = {  # a thread of the submission's: its loop, and whether it starts at load (left running) or in a check
    "idle": ("while True:\n        time.sleep(0.5)\n        log.append(len(log))", "load"),
    "busy": ("while True:\n        sum(i * i for i in range(20_000))\n        time.sleep(0.001)", "load"),
    # a red team's thread renamed itself in every loop and was listed once per name, each with its whole CPU
    "busy, renamed": ("while True:\n        threading.current_thread().name = f'side {len(log)}'\n"
                      "        log.append(sum(i * i for i in range(20_000)))\n        time.sleep(0.001)", "load"),
    # started by the first call of each check, ended before the check does: its CPU is the process's beyond its
    # live threads'
    "ended idle": ("time.sleep(0.05)\n    log.append(len(log))", "call"),
    "ended busy": ("end = time.process_time() + 0.3\n    while time.process_time() < end:\n        pass", "call"),
}


@pytest.mark.parametrize("kind", list(THREADS))
def test_a_thread_left_running_fails_a_check_only_if_it_works_beside_it(kind):
    """A red team's honest server with an idle metrics thread lost its checks: the worker's report of a thread left
    running failed every check it was seen in. Now the operating system's count of that thread's CPU over the
    check decides: an idle thread is noted, a busy one fails the check, in every check (the reports used to stop
    counting after 50: a second check of 60 calls went unseen), and one that ended during the check is judged
    by the CPU of the threads that ended (a red team's one-shot notification thread failed as unreadable)."""
    def calls(ctx):
        for _ in range(60):
            ctx.call(Entry("f"), what="f()")
            time.sleep(0.005)
        return "called"

    exercise = Exercise("99_fake", "fake", ("f",), tuple(fake_check(name, name, 1, calls, ("f",))
                                                         for name in ("first", "second")), "nothing")
    loop, start = THREADS[kind]
    launch = "threading.Thread(target=side, daemon=True).start()"
    source = (f"import threading, time\nlog, count = [], [0]\ndef side():\n    {loop}\n"
              + (f"{launch}\n" if start == "load" else "")
              + "def f():\n    count[0] += 1\n"
              + (f"    if count[0] % 60 == 1:\n        {launch}\n" if start == "call" else "")
              + "    return 1\n")
    report = grade_source(source, exercise)
    for name in ("first", "second"):
        result = report.result(name)
        if kind.endswith("idle"):
            assert result.status == PASSED, result.line()
            assert any("idle through this check" in note for note in result.notes), result.notes
        else:
            assert result.status == "failed" and "worked beside" in result.message, result.line()
            assert re.search(r"side[^:;]*(: |, ended during the check: )\d+\.\d\d s of CPU", result.message), \
                result.message
            assert result.message.count("s of CPU") == 1, result.message  # one thread, listed once


def test_a_worker_sets_its_heap_aside_after_each_call_and_a_live_one_does_not():
    """A collection of the oldest generation scanned the whole heap (torch, Dynamo, the compiled code): 0.2 s of
    CPU that landed in one of 05's unseen requests on a loaded CI. A worker process freezes what is alive after
    each call (gc.freeze), so a later collection scans only what the next request makes; the learner's own kernel
    (a live grading) is left alone. Run in a process of its own: freezing is process-wide."""
    script = """
import gc
from autograder.core.wire import Fn
from autograder.core.worker import Worker
heap = [[i] for i in range(200_000)]
call = {"fn": Fn("autograder.core.timing:synchronize"), "args": [None], "keep": False}
Worker(namespace={}).op_invoke(call)
live = gc.get_freeze_count()
Worker().op_invoke(call)
print(live, gc.get_freeze_count(), len(gc.get_objects(2)))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    live, frozen, oldest = (int(n) for n in done.stdout.split())
    assert live == 0, done.stdout
    assert frozen >= 200_000 and oldest < 1_000, done.stdout


@pytest.mark.parametrize("restored", [False, True], ids=["left overwritten", "restored before the judge's check"])
def test_inputs_overwritten_in_shared_memory_before_the_call_cannot_make_the_reference_agree(tmp_path, monkeypatch,
                                                                                             restored):
    """A red team (2026-11-30, the twentieth) had a thread of the worker's overwrite exercise 01's shared bias pool
    with 1e30 between the judge's write of a block's inputs and its digest of them: the eager chain then returned a
    constant in place of four layers, and the judge's reference, computed from the inputs read back from shared
    memory, agreed with it (4/4 speed at a 1.5x gate). Here the overwrite is made exactly there, every timed block
    (the judge's synchronize after writing them); the inputs' check compares the shared inputs with the judge's own
    copy, and where the thread puts them back before that check, the reference, computed from that copy, does not
    agree with the constant."""
    from autograder.core import speed
    from autograder.exercises import EXERCISES
    from autograder.tools.paths import solution

    real_prepare, real_sync = speed._Runner._prepare, speed.synchronize

    def tampered_prepare(self, n, guard_at=None):
        def sync_then_overwrite(device):
            real_sync(device)
            if self.remote is not None and guard_at is None and len(self.in_pools) == 2:
                kept[self] = self.in_pools[1].region().clone()
                self.in_pools[1].region().fill_(1e30)  # every bias of every call: what the worker's thread wrote

        monkeypatch.setattr(speed, "synchronize", sync_then_overwrite)
        try:
            return real_prepare(self, n, guard_at)
        finally:
            monkeypatch.setattr(speed, "synchronize", real_sync)

    real_check = speed._Runner._check_block

    def check_after_restoring(self, *args):
        if restored and self in kept:
            self.in_pools[1].region().copy_(kept.pop(self))
        return real_check(self, *args)

    kept = {}
    monkeypatch.setattr(speed._Runner, "_prepare", tampered_prepare)
    monkeypatch.setattr(speed._Runner, "_check_block", check_after_restoring)
    override = tmp_path / "constant_on_overwritten_bias.py"
    override.write_text("""import torch
from autograder.exercises.ex01_eager_mode.workload import checked_gelu_bias


def fast_gelu_bias(x, bias):  # right on any input; a constant, computed once, where every bias is 1e30
    if bias.numel() and bool((bias == 1e30).all()) and bool(torch.isfinite(x).all()):
        return torch.full_like(x, float(checked_gelu_bias(x[:1, :1], bias[:, :1])[0, 0]))
    return checked_gelu_bias(x, bias)
""")
    report = grading.grade_file(EXERCISES["01_eager_mode"], solution("01_eager_mode"), overrides=[override],
                                only=["fast_gelu_bias_speed"], device="cpu",
                                policy=Policy(cpu_gate=0.05, allow_skip=True, timeout=300))
    result = report.result("fast_gelu_bias_speed")
    assert result.status == "failed", result.line()
    expected = "output during timing" if restored else "modified its inputs during timing"
    assert expected in result.message, result.message
