"""The trusted side of a grading (the judge): it runs no submission code.

The submission runs in a worker (``autograder.core.worker``: a fresh process, or the learner's own kernel for
self-study) that the judge drives through a :class:`Session`. The judge makes the inputs (from the secret),
runs the baseline and the reference itself, holds the clock, reads every output out of its own shared memory
and decides. What only the worker can see (compile counters, settings, threads) is reported as self-reported.
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import torch

from autograder.core import cgroups, sandbox, zygote
from autograder.core.compile_cache import drop_truncated_libraries
from autograder.core.compile_events import CompileEvents
from autograder.core.correctness import HIDDEN, check_outputs, generator, grading_secret, same_bits, seed_for
from autograder.core.protocol import (
    FAILED,
    INCONCLUSIVE,
    PASSED,
    SKIPPED,
    CheckFailed,
    CheckResult,
    Exercise,
    Inconclusive,
    NeedsGPU,
    Report,
    Tolerance,
    environment,
    visible,
)
from autograder.core.submission import DEFAULT_LIMIT_S, SubmissionError, compile_modes, grading_limit, submission_code
from autograder.core.timing import _perf_counter, synchronize
from autograder.core.trust import GraderError, audit, request_name
from autograder.core.trust import label as trust_label
from autograder.core.wire import (
    Entry,
    Fn,
    JudgeEnd,
    Pool,
    Ref,
    Slot,
    WorkerGone,
    private_pool,
    shm_dir,
    use_shared_memory_files,
)

PACKAGE = Path(__file__).resolve().parent.parent  # the autograder package
DEFAULT_TIMEOUT_S = DEFAULT_LIMIT_S  # a grading's; grading_limit() gives a submission asking for max-autotune more
CALL_TIMEOUT_S = 300  # one request; a grading's own deadline cuts it shorter (COURSE_CALL_TIMEOUT sets another)
CALL_TIMEOUT_ENV = "COURSE_CALL_TIMEOUT"
# Settings changes and threads a worker reports, kept per session: enough to name them; a red team's worker sent
# 53,000 long items with every reply and grew the judge by 20 MB and 1.6 CPU-s a reply.
MAX_REPORTED = 50


def call_timeout() -> float:
    """How long one request may take: CALL_TIMEOUT_S unless the instructor's environment sets another (a slower
    GPU, a mode whose first compile searches for longer)."""
    try:
        return float(os.environ.get(CALL_TIMEOUT_ENV) or CALL_TIMEOUT_S)
    except ValueError:
        raise ValueError(f"{CALL_TIMEOUT_ENV}={os.environ[CALL_TIMEOUT_ENV]!r}: give seconds, e.g. 600") from None


def _is_compile_worker(pid: int) -> bool:
    """A process of torch.compile's compile-worker pool (Inductor compiles kernels in subprocesses)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            text = f.read(4096).replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    return "compile_worker" in text or "torch._inductor" in text
# A compile still running when its request's limit passes goes on, a slice at a time, up to the grading's deadline
# (Session._compile_goes_on); busy: more than this many cores' worth of CPU time over a second of sampling, seen
# in one of the seconds of a lull's length (a search has quiet seconds: candidates timed on the GPU, a pool
# between phases; 02's max-autotune step was stopped in one, at 395 s, on an H200).
COMPILE_SLICE_S = 30.0
COMPILE_BUSY_CORES = 0.2
COMPILE_LULL_S = 15
MAX_RESTARTS = 2  # fresh workers for the checks after one that left the worker dead, per grading
RESTART_MIN_LEFT_S = 30  # no fresh worker with less of the grading's time left than this
# Inductor's warnings that say nothing about the learner's code: the first advises TF32, which the grader forbids.
QUIET_WARNINGS = (r"TensorFloat32 tensor cores for float32 matrix multiplication available",
                  r"\s*Online softmax is disabled on the fly")
# The variables a worker inherits; everything else (the instructor's secret first) stays behind.
WORKER_ENV = ("PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "CUDA_VISIBLE_DEVICES", "CUDA_HOME",
              "LD_LIBRARY_PATH", "CC", "CXX", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
              "COURSE_WORKER_CACHE", "TORCHINDUCTOR_COMPILE_THREADS", "COURSE_COMPILE_BUDGET_S")


@dataclass
class Policy:
    """How a grading may end. ``cpu_gate`` exists for the test suite: it runs the timed checks on a CPU, where
    the real gate (a GPU figure) cannot apply."""

    allow_skip: bool = False
    timeout: float | None = None  # None: grading_limit() of the submission's text (600 s; 1800 s for max-autotune)
    cpu_gate: float | None = None
    # Wait for the GPU to be idle (nothing of the worker's left) before timing the baseline. Off only where
    # several gradings share one GPU on purpose (their verdicts, not their timings, are what is wanted).
    drain: bool = True


class RemoteError(Exception):
    """The submission's code raised in the worker (type, message and where, as the worker reported them)."""

    def __init__(self, error: dict):
        self.type = visible(error.get("type", "Exception"))
        self.message = visible(error.get("message", ""))
        self.chain = [visible(c) for c in error.get("chain", [])] if isinstance(error.get("chain"), list) else []
        # the exception's classes by qualified name ("builtins.FloatingPointError"): the worker's word, like the rest
        self.mro = [visible(c) for c in error.get("mro", [])] if isinstance(error.get("mro"), list) else []
        self.where = visible(error.get("where", ""))
        super().__init__(f"{self.type}: {self.message}")

    @property
    def not_implemented(self) -> bool:
        return "NotImplementedError" in self.chain

    def first_line(self) -> str:
        """The message's first line; where that only introduces the cause ("backend='...' raised:", as Dynamo
        wraps an error in a learner's backend), the cause's line after it too."""
        lines = [line for line in self.message.strip().splitlines() if line.strip()]
        if not lines:
            return ""
        return f"{lines[0]} {lines[1].strip()}" if lines[0].rstrip().endswith(":") and len(lines) > 1 else lines[0]

    def describe(self) -> str:
        return f"{self.type}: {self.first_line()}" + (f" (at {self.where})" if self.where else "")


@dataclass
class Remote:
    """An object the worker keeps for the judge, with the worker's description of it."""

    ref: Ref
    value: dict

    @property
    def callable(self) -> bool:
        return bool(self.value.get("callable"))


def worker_cache() -> Path:
    """Compile caches of workers: apart from the judge's own, which a worker must never write to."""
    default = Path(tempfile.gettempdir()) / f"autograder-worker-{os.getuid()}"
    return Path(os.environ.get("COURSE_WORKER_CACHE") or default)


def copy_worker_cache(into: Path) -> None:
    """The warm worker cache copied into ``into`` (a grading's own, thrown away after it), if there is one."""
    if worker_cache().is_dir():
        shutil.copytree(worker_cache(), into, symlinks=True, ignore_dangling_symlinks=True, dirs_exist_ok=True)


def worker_env() -> dict:
    env = {k: os.environ[k] for k in WORKER_ENV if k in os.environ}
    env["PYTHONPATH"] = sandbox.python_path()
    cache = worker_cache()
    env["TORCHINDUCTOR_CACHE_DIR"] = str(cache / "inductor")
    env["TRITON_CACHE_DIR"] = str(cache / "triton")
    env["AUTOGRADER_WORKER"] = "1"
    # The candidate computes with the threads the baseline has (the judge's): on a shared CPU, OpenMP's default
    # (every core) makes Inductor's many small parallel kernels wait on busy cores, 100x slower than eager.
    env["OMP_NUM_THREADS"] = str(torch.get_num_threads())
    env["PYTHONUNBUFFERED"] = "1"
    return env


def sandboxed_worker(argv: list[str], env: dict, scratch: Path, pools: Path) -> tuple[list[str], dict]:
    """The worker's command line and environment inside the sandbox (see core.sandbox): it may write only its
    scratch, where its compile caches start as a copy of the warm worker cache (so nothing it writes reaches
    another grading), and ``pools``, the grading's own folder of shared memory (on a CPU the rest of /dev/shm is
    the sandbox's own). Where the sandbox is off, only the memory limit applies."""
    gpu = torch.cuda.is_available()
    if sandbox.mode() != "none":
        cache = scratch / "cache"
        copy_worker_cache(cache)
        env = {**env, "TORCHINDUCTOR_CACHE_DIR": str(cache / "inductor"), "TRITON_CACHE_DIR": str(cache / "triton")}
    # The judge pauses and kills the worker by process group (no new session). On a GPU the worker keeps the
    # host's PID namespace: CUDA IPC with the judge is not verified across PID namespaces yet.
    return sandbox.wrap(argv, writable=[scratch, pools], cwd=scratch, gpu=gpu, own_pids=not gpu,
                        new_session=False), env


def _log_tail(log: Path, lines: int = 5, limit: int = 64 << 10) -> list[str]:
    """The last lines of the worker's log, which sits in the worker's writable scratch: read as a regular file only
    (never through a link the worker left in its place: to the secret, the judge's environment or /dev/zero)."""
    try:
        f = sandbox.open_regular(log)
    except sandbox.NotARegularFile:
        return ["(the worker's log was replaced by something that is not a file: not read)"]
    except OSError:
        return []
    with f:
        f.seek(max(0, os.fstat(f.fileno()).st_size - limit))
        text = f.read(limit).decode(errors="replace")
    return [visible(line) for line in text.strip().splitlines()[-lines:]]


def _children() -> dict[int, list[int]]:
    """Every process's children, read from /proc (empty where there is none)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        fields = sandbox.proc_stat(entry)
        try:
            ppid = int(fields[1])
        except (TypeError, ValueError):  # gone
            continue
        children.setdefault(ppid, []).append(int(entry))
    return children


def _start_time(pid: int) -> int | None:
    """When the process started (clock ticks after boot): with its pid, which process it is (pids are reused)."""
    fields = sandbox.proc_stat(pid)
    try:
        return int(fields[19])
    except (TypeError, IndexError, ValueError):  # gone
        return None


def _descendants(root: int, children: dict[int, list[int]] | None = None) -> set[int]:
    """Every process under ``root`` (children of children...)."""
    children = _children() if children is None else children
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _become_subreaper() -> None:
    """Make the judge a child subreaper (Linux): a process that leaves the worker's tree by a double fork (its parent
    exits) is adopted by the judge instead of the host's init, so the judge still finds it to stop and to kill (a
    red team's double-forked daemons loaded the CPU only while the judge timed the baseline). Where the sandbox has
    a PID namespace of its own, its init adopts them first."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):  # not Linux
        pass


_STOPPED = frozenset("TtZX")  # a task's state once SIGSTOP took effect (or it is gone)


def _tasks_stat(pid: int) -> list[list[str]]:
    """The fields after the command name of /proc/PID/task/*/stat: one list per thread (empty if gone)."""
    rows = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return rows
    for tid in tasks:
        fields = sandbox.proc_stat(f"{pid}/task/{tid}")
        if fields is not None:
            rows.append(fields)
    return rows


def _cpu_s(fields: list[str] | None) -> float | None:
    """User and system seconds from a /proc stat line's fields (sandbox.proc_stat); None if unreadable."""
    try:
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (TypeError, IndexError, ValueError):
        return None


def _own_tid(pid: int, tid: str) -> int | None:
    """A thread's id as its own process sees it (the last NSpid entry of its status: the innermost PID namespace;
    the id itself without namespaces); None if unreadable."""
    try:
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except (OSError, ValueError, IndexError):
        return None
    return int(tid)  # a kernel without NSpid (before 4.1) has no PID namespaces to map


def judge_scheduling() -> tuple:
    """This process's (the judge's) scheduling: policy, nice value, allowed CPUs. A process of the same user can
    change all three from outside (a red team's worker set its judge to SCHED_IDLE on one CPU, which slows the
    baseline it times on a busy machine); the judge cannot always change them back, but it sees it."""
    return os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0))


def _cpu_ticks(pids: set[int], reaped: bool = False) -> int:
    """User plus system time of these processes, in clock ticks (each process's own threads; with ``reaped``, also
    the children each has waited for)."""
    total = 0
    for pid in pids:
        fields = sandbox.proc_stat(pid)
        try:
            total += sum(int(fields[k]) for k in ((11, 12, 13, 14) if reaped else (11, 12)))
        except (TypeError, IndexError, ValueError):  # gone
            continue
    return total


def _ignores_sigchld(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGCHLD - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


class Uncountable(Inconclusive):
    """The submission's CPU time cannot be counted (Session.beside_requests_s)."""


class StillRunning(Exception):
    """A process of the submission kept running after it was paused, or new ones kept appearing."""


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class Session:
    """The judge's handle on one worker: requests with deadlines, the worker's self-reports, and (for a worker
    process it started) pausing it while the baseline is timed and killing its whole process group at the end."""

    def __init__(self, end: JudgeEnd, process: subprocess.Popen | zygote.ForkedWorker | None = None,
                 log: Path | None = None, deadline: float | None = None):
        self.end, self.process, self.log = end, process, log
        self.deadline = deadline or time.monotonic() + DEFAULT_TIMEOUT_S
        self.dead: str = ""
        self.shared: dict[int, Pool] = {}
        self.changes: list[str] = []  # settings the worker said the submission changed
        # threads of the submission's the worker reported since the check began: (name, thread id) by thread id
        # (by name where it sent none; a thread that renames itself is one thread)
        self.threads: dict[object, tuple[str, int | None]] = {}
        self.threads_mark: tuple | None = None  # where the last check's count ended (_threads_mark)
        self.on_event = None  # answers the worker's questions during a request
        self.paused = False
        self.stopped: set[int] = set()  # the worker's processes a pause stopped
        # the judge's children before the worker, as (pid, start time): not the submission's. A pid alone is not
        # who: a red team's worker killed a process whose pid was in here, forked until one of its own got that pid,
        # and had it adopted by the judge: it ran on through every pause and kill of the grading and the next ones.
        self.judge_children: set[tuple[int, int | None]] = set()
        self.paused_ticks = 0
        self.pool_dir: str | None = None  # this grading's own folder of shared memory (CPU pools), removed at the end
        self.scheduling = judge_scheduling()  # the judge's, before any submission code ran (see paused)
        self.restarts = 0  # fresh workers after dead ones (restart)
        self.owned_scratch: list[Path] = []  # the restarts' scratch folders, removed at the end
        self.ledger: list[tuple[str, float]] = []  # every request: (registry name, seconds on the judge's clock)
        self._private = None  # on a GPU: the memory pool of everything shared with this worker (wire.private_pool)
        self._server: tuple[int, int | None] | None = None  # (worker pid, its serving Python's pid): _serving_thread_s
        self.cpu_group: cgroups.CpuGroup | None = None  # the kernel's count of the worker's CPU (cpu_seconds)
        self.stop_between = False  # stopped_between_requests
        self.request_started = time.monotonic()
        self.compiled_past: float | None = None  # when this request's compile first ran past its limit
        self.quiet_for = 0  # seconds watched without a busy compile worker before the judge gave up waiting
        self.compile_modes: list[str] = []  # the modes the submission's source asks torch.compile for (messages)

    @classmethod
    def spawn(cls, *, timeout: float = DEFAULT_TIMEOUT_S, scratch: Path) -> Session:
        """A worker in ``scratch``, which must be a fresh folder no submission code has run in: the judge opens the
        worker's log there and copies the warm compile cache into it, following whatever links it finds."""
        use_shared_memory_files()
        sandbox.preflight()  # once per process: a sandbox that cannot start Python is the grader's error, said so
        sandbox.refuse_tracing(torch.cuda.is_available())  # before any submission code runs beside the judge
        # A worker killed mid-compile (at a limit) where it wrote the shared cache, or a warm-up killed, can leave a
        # truncated kernel library there, on which every later compile of that kernel dies (SIGBUS)
        for path in drop_truncated_libraries(worker_cache() / "inductor"):
            print(f"removed a truncated kernel library from the worker cache (a compile killed while writing it): "
                  f"{path}", file=sys.stderr)
        ours, theirs = socket.socketpair()
        log = scratch / "worker.log"
        pools = Path(tempfile.mkdtemp(prefix="autograder-pools-", dir=shm_dir()))
        argv, env = sandboxed_worker([sys.executable, "-m", "autograder.core.worker", str(theirs.fileno())],
                                     worker_env(), scratch, pools)
        _become_subreaper()  # before a template forks: the worker it forks is adopted by the judge
        template = None
        if zygote.wanted(gpu=torch.cuda.is_available(), sandboxed=sandbox.mode() != "none"):
            template = zygote.template_for(*sandboxed_worker([sys.executable, "-m", "autograder.core.zygote"],
                                                             worker_env(), scratch, pools))
        judge_children = {(pid, _start_time(pid)) for pid in _children().get(os.getpid(), ())}
        group = cgroups.CpuGroup.make()
        with open(log, "wb") as out:
            process = template.fork(theirs.fileno(), out.fileno(), str(scratch)) if template else None
            forked = process is not None
            if process is None:  # a worker started from nothing (in the group from its first instruction)
                with group.joining() if group else nullcontext() as join:
                    process = subprocess.Popen(argv, pass_fds=[theirs.fileno()], env=env, cwd=scratch,
                                               start_new_session=True, stdin=subprocess.DEVNULL, stdout=out,
                                               stderr=subprocess.STDOUT, preexec_fn=join)
        # A forked worker joins now, before it runs any submission code (that waits for "hello"); a started one
        # joined before exec, if the kernel let it. Where it is not in the group, /proc counts.
        if group is not None and not (group.add(process.pid) if forked else group.holds(process.pid)):
            group.close()
            group = None
        theirs.close()
        from multiprocessing.connection import Connection

        session = cls(JudgeEnd(Connection(ours.detach())), process, log, time.monotonic() + timeout)
        session.pool_dir = str(pools)
        session.judge_children = judge_children
        session.cpu_group = group
        return session

    def restart(self) -> None:
        """A fresh worker in place of this dead one, under the same grading deadline (the caller loads the
        submission into it again). Only for a worker process this judge started, not a live kernel.

        It gets a fresh scratch folder too: the dead worker could write its own, and a red team's link planted
        there (the next worker's log, pointed at a file the judge's process would import) made the judge write a
        file of the submission's choosing outside the sandbox, which forged the report. Nothing passes from one
        worker's folder to the next."""
        scratch = Path(tempfile.mkdtemp(prefix="autograder-"))  # named like the first: a worker cannot tell
        fresh = Session.spawn(timeout=max(self.deadline - time.monotonic(), 1.0), scratch=scratch)
        self.end.close()
        kept = {"deadline": self.deadline, "timeout": self._limit(), "restarts": self.restarts + 1,
                "scheduling": self.scheduling, "ledger": self.ledger, "compile_modes": self.compile_modes,
                "owned_scratch": [*self.owned_scratch, scratch]}
        self.__dict__.update({**fresh.__dict__, **kept})

    # ---- requests ----
    def call(self, op: str, timeout: float | None = None, fds: list[int] = (), **fields) -> dict:
        """One request and its reply, on the judge's clock: the ledger keeps its registry name and duration
        (core/trust.py), so that a budget can charge every request of its window and a verdict's requests can be
        audited."""
        if self.dead:
            raise WorkerGone(self.dead)
        deadline = min(self.deadline, time.monotonic() + (timeout or call_timeout()))
        started = _perf_counter()
        if self.stop_between and self.paused:
            self.resume()  # it runs for the request only
        try:
            return self._call(op, deadline, timeout, fds, fields)
        finally:
            self.ledger.append((request_name(op, fields), _perf_counter() - started))
            if self.stop_between and not self.dead:
                try:
                    self.pause()
                except StillRunning as err:
                    self.resume()
                    raise Inconclusive(f"the measurement is void: {err}, between the grader's requests") from None

    @contextmanager
    def stopped_between_requests(self):
        """Within it, the submission's processes run only while a request is outstanding: stopped (SIGSTOP, as for
        the baseline) as each reply arrives, continued as the next request goes out. Work cannot then be done
        between requests, where no clock of the judge's would see it (a thread compiling ahead)."""
        self.stop_between = True
        try:
            yield
        finally:
            self.stop_between = False
            self.resume()

    def _call(self, op: str, deadline: float, timeout: float | None, fds, fields: dict) -> dict:
        self.request_started, self.compiled_past, self.quiet_for = time.monotonic(), None, 0
        try:
            self.end.send({"op": op, **fields}, fds)
            while True:
                while not self.end.readable(deadline):
                    deadline = self._compile_goes_on(deadline, timeout)  # or TimeoutError
                reply = self.end.receive(deadline)
                if "event" in reply:
                    self.end.send(self.on_event(reply["event"]) if self.on_event else {})
                    continue
                break
        except TimeoutError:
            whole = deadline >= self.deadline
            doing = self.activity()  # what the operating system says the worker was doing: before the kill
            self.kill((f"grading timed out after {self._limit():g} s" if whole else
                       f"the worker did not answer within {timeout or call_timeout():g} s") + f": {doing}"
                      + self._compiled_past_limit() + (self._time_spent() if whole else ""))
            raise WorkerGone(self.dead) from None
        except (WorkerGone, BrokenPipeError, ConnectionError, OSError) as err:
            self.kill(self._death(err))
            raise WorkerGone(self.dead) from None
        changed = reply.get("changed")
        if isinstance(changed, list) and len(self.changes) < MAX_REPORTED:  # a few name it; millions are a flood
            self.changes.extend(_texts(changed, 300, MAX_REPORTED - len(self.changes)))
        names, ids = _texts(reply.get("threads"), 300), reply.get("thread_ids")
        ids = ids[:len(names)] if isinstance(ids, list) and len(ids) >= len(names) else [None] * len(names)
        for name, tid in zip(names, ids, strict=True):
            tid = tid if type(tid) is int else None
            if len(self.threads) < MAX_REPORTED:
                self.threads.setdefault(name if tid is None else tid, (name, tid))
        return reply

    def _time_spent(self) -> str:
        """Where the grading's time went before the request it ran out in: a grading's limit can be spent by
        earlier, honest checks (a loaded machine's compiles), which says more than what the worker was doing in
        its last second."""
        if not self.ledger:
            return ""
        name, longest = max(self.ledger, key=lambda entry: entry[1])
        return (f". Before this request the grading's requests took {sum(s for _, s in self.ledger):.0f} s (the "
                f"longest, {visible(name)}, {longest:.0f} s); this one had run "
                f"{time.monotonic() - self.request_started:.0f} s")

    def _limit(self) -> float:
        return getattr(self, "timeout", DEFAULT_TIMEOUT_S)

    def _observe(self, sample_s: float) -> tuple[int, float]:
        """The worker's processes as the operating system shows them: how many are torch.compile's compile workers,
        and how many cores they all kept busy over ``sample_s``."""
        pids = self.processes()
        before = _cpu_ticks(pids)
        time.sleep(sample_s)
        cores = max(0, _cpu_ticks(pids) - before) / os.sysconf("SC_CLK_TCK") / sample_s
        return sum(1 for pid in pids if _is_compile_worker(pid)), cores

    def _compile_goes_on(self, deadline: float, timeout: float | None) -> float:
        """A request's own limit has passed. A compile still running may go on, COMPILE_SLICE_S at a time up to
        the grading's deadline: compile workers of torch.compile among the worker's processes and cores busy, as
        the operating system shows them (max-autotune's first compile of 02's training step ran for more than
        330 s on an H100), in one of COMPILE_LULL_S seconds observed. Anything else, or a request with a limit of
        its own (a budget), ends here: TimeoutError.
        Time only: a worker that fakes a compile keeps its own grading waiting, nothing else."""
        if timeout is not None or self.process is None or deadline >= self.deadline:
            raise TimeoutError
        for _ in range(COMPILE_LULL_S):
            compilers, cores = self._observe(1.0)
            if compilers and cores >= COMPILE_BUSY_CORES:
                break
            if time.monotonic() >= self.deadline:
                raise TimeoutError
            if self.end.readable(0):  # it answered while watched: the reply is read under a slice's limit
                break
        else:
            self.quiet_for = COMPILE_LULL_S
            raise TimeoutError
        if self.compiled_past is None:
            self.compiled_past = time.monotonic()
        return min(self.deadline, time.monotonic() + COMPILE_SLICE_S)

    def _compiled_past_limit(self) -> str:
        if self.compiled_past is None:
            return ""
        modes = ", ".join(f'mode="{visible(m)}"' for m in self.compile_modes)
        asked = f" (your code asks torch.compile for {modes})" if modes else ""
        quiet = (f", then no compile worker busy in any of {self.quiet_for} seconds watched" if self.quiet_for
                 else "")
        return (f". The request had run {time.monotonic() - self.request_started:.0f} s, compiling past its own "
                f"limit for the last {time.monotonic() - self.compiled_past:.0f} s{quiet}{asked}: a compile may run "
                f"past a request's {call_timeout():g} s, not past the grading's {self._limit():g} s (--timeout; a "
                "class: COURSE_SUBMISSION_TIMEOUT)")

    def activity(self, sample_s: float = 1.0) -> str:
        """What the worker's processes were doing when a request ran out of time, as the operating system shows it
        (their CPU time over ``sample_s``, and whether torch.compile's compile workers were among them): a long
        compile (max-autotune's search takes minutes on a cold cache) is reported as a compile, not as a hang."""
        if self.process is None:
            return "no answer (a hang in your code, or a compile that takes this long?)"
        compilers, cores = self._observe(sample_s)
        if compilers and cores >= COMPILE_BUSY_CORES:
            return (f"it was compiling: {compilers} compile worker process(es) of torch.compile were running, "
                    f"{cores:.1f} core(s) busy. A mode that searches (max-autotune) can take minutes on cold "
                    f"caches; a compile may run past a request's {call_timeout():g} s (COURSE_CALL_TIMEOUT), up to "
                    f"the grading's {self._limit():g} s in all")
        if cores > 0.1:  # a sleeper uses none; a loop gets its share even of a loaded machine's cores
            return f"it was running, {cores:.1f} core(s) busy (an endless loop, or a compile that takes this long?)"
        return ("it was idle, waiting on something (a hang: a lock, a sleep, a queue that never fills?)"
                + (f"; {compilers} compile worker process(es) of torch.compile were there, but idle" if compilers
                   else ""))

    def _death(self, err) -> str:
        code = self.process.poll() if self.process else None
        if self.process is not None and code is None:
            try:
                code = self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
        cause = (f"killed by signal {-code} (out of memory?)" if code is not None and code < 0 else
                 f"exit code {code}" if code is not None else str(err))
        tail = ""
        lines = _log_tail(self.log) if self.log else []
        tail = "\n" + "\n".join(lines) if lines else ""
        return (f"the grading process ended before reporting ({cause}): did your code call os._exit, crash Python, "
                f"or exhaust memory?{tail}")

    def invoke(self, fn, *args, into: Slot | None = None, keep: bool = True, no_grad: bool = False,
               fresh_settings: bool = False, timeout: float | None = None, device=None, stance: str | None = None,
               **kwargs) -> Remote:
        reply = self.call("invoke", timeout=timeout, fn=fn, args=list(args), kwargs=kwargs, into=into, keep=keep,
                          no_grad=no_grad, fresh_settings=fresh_settings, device=str(device) if device else None,
                          stance=stance)
        if "error" in reply:
            raise RemoteError(reply["error"] if isinstance(reply["error"], dict) else {})
        value = reply.get("value") if isinstance(reply.get("value"), dict) else {}
        return Remote(Ref(int(reply["ref"])) if "ref" in reply else None, value)

    def private_pool(self, device):
        """The memory pool that every pool shared with this worker comes from (None on a CPU): no other tensor of
        the judge's shares a segment with them. Dropped only once the worker is dead (kill)."""
        if self._private is None:
            self._private = private_pool(device)
        return self._private

    def share(self, pool: Pool) -> None:
        if pool.tensor.is_cuda and (pool.private is None or pool.private is not self._private):
            raise GraderError("a GPU pool about to be shared was not allocated from this worker's private memory "
                              "pool: it could share an allocator segment with the judge's own tensors")
        if pool.id not in self.shared:
            try:
                self.call("pool", id=pool.id, tensor=pool.shareable(), fds=[pool.fd] if pool.fd is not None else [])
            finally:
                pool.unlink()
            self.shared[pool.id] = pool

    def events(self) -> CompileEvents:
        reply = self.call("events")
        data = reply.get("events")
        return CompileEvents.from_json(data if isinstance(data, dict) else {})

    def reset(self) -> None:
        self.call("reset")

    # ---- the worker process ----
    def processes(self) -> set[int]:
        """The worker and every process it started: its descendants, and the judge's children that are not the
        judge's own (orphans of the worker's tree, which the judge adopts as a subreaper)."""
        if self.process is None:
            return set()
        children = _children()
        found = {self.process.pid} | _descendants(self.process.pid, children)
        for child in set(children.get(os.getpid(), ())) - zygote.template_pids():
            if child != self.process.pid and (child, _start_time(child)) not in self.judge_children:
                found |= {child} | _descendants(child, children)
        return found

    def cpu_seconds(self) -> float:
        """User and system CPU seconds of the submission's processes so far, as the operating system counts them:
        the worker's control group where the judge could make one (``cgroups.CpuGroup``: every process that was
        ever in it, those the kernel reaped itself included), else each process's own threads and the children it
        has reaped (a child reaped by the kernel, its parent ignoring SIGCHLD, takes its time with it)."""
        seconds = self.cpu_group.seconds() if self.cpu_group is not None else None
        if seconds is not None:
            return seconds
        return _cpu_ticks(self.processes(), reaped=True) / os.sysconf("SC_CLK_TCK")

    def serving_pid(self) -> int | None:
        """The worker's Python, whose main thread (thread id = pid) serves the grader's requests: the first process
        of the worker's tree that runs the judge's interpreter (under a sandbox the worker is its child; a process
        the submission forks starts later). None where there is none to read."""
        if self.process is None:
            return None
        if self._server is None or self._server[0] != self.process.pid:
            python = os.path.realpath(sys.executable)
            found = []
            for pid in self.processes():
                try:
                    if os.path.realpath(f"/proc/{pid}/exe") == python:
                        found.append((_start_time(pid) or 0, pid))
                except OSError:
                    continue
            self._server = (self.process.pid, min(found)[1] if found else None)
        return self._server[1]

    def thread_cpu_s(self) -> tuple[dict[int, float], float | None]:
        """CPU seconds of each live thread of the worker's Python (``serving_pid``), by the operating system's count,
        keyed by the thread's id in the worker's own PID namespace (what the worker reports as its native id); and
        the whole process's (its threads that ended included; None where unreadable)."""
        server, found = self.serving_pid(), {}
        try:
            tids = os.listdir(f"/proc/{server}/task") if server is not None else []
        except OSError:
            tids = []
        for tid in tids:
            found[_own_tid(server, tid)] = _cpu_s(sandbox.proc_stat(f"{server}/task/{tid}"))
        found = {tid: cpu for tid, cpu in found.items() if tid is not None and cpu is not None}
        return found, _cpu_s(sandbox.proc_stat(server)) if server is not None else None

    def _serving_thread_s(self) -> float | None:
        """CPU seconds of the thread that serves the grader's requests (``serving_pid``); None where unreadable."""
        server = self.serving_pid()
        return _cpu_s(sandbox.proc_stat(f"{server}/task/{server}")) if server is not None else None

    def beside_mark(self) -> tuple:
        """Where to count work beside the requests from (``beside_requests_s``): the worker, the CPU seconds of
        every process and of the serving thread so far, the ledger's length, and whether /proc's count can lose
        time already (``_reaped_unseen``)."""
        worker = self.process.pid if self.process is not None else None
        cpu = self.cpu_seconds()
        return worker, cpu, self._serving_thread_s(), len(self.ledger), self._reaped_unseen()

    def _reaped_unseen(self) -> bool:
        """Whether the CPU time of the submission's children can leave the count: no control group counts it
        (``cpu_group``) and a process of the submission ignores SIGCHLD, so the kernel reaps its children itself
        and their time is added to no parent's (a red team's helper, killed so, cancelled its CPU from /proc's
        count along with a thread's work in the window)."""
        return self.cpu_group is None and any(_ignores_sigchld(pid) for pid in self.processes())

    def beside_requests_s(self, mark: tuple, cores: float) -> tuple[float, float]:
        """(CPU seconds beside serving since ``mark``, the seconds of the requests since, on the judge's clock), as
        the operating system counts them: everything the submission's processes used, less the serving thread's
        CPU up to one core through every request, less ``cores`` - 1 more cores through them (torch's intra-op
        threads, on a CPU). A thread or process that compiles while requests run or while the judge checks their
        outputs shows, as does the serving thread's own work between requests; an honest server's figure is
        about 0."""
        worker, cpu, thread, start, unseen = mark
        served = sum(seconds for _, seconds in self.ledger[start:])
        if self.process is None or self.process.pid != worker:  # no worker, or a fresh one: nothing comparable
            return 0.0, served
        if unseen or self._reaped_unseen():
            raise Uncountable("the CPU time your processes used cannot be counted here: a process of yours ignores "
                              "SIGCHLD, so the time of its children leaves the operating system's count when they "
                              "end (and this machine gives the grader no control group that would count it); this "
                              "check is not graded with it (leave SIGCHLD as it is)")
        used = self.cpu_seconds() - cpu
        now = self._serving_thread_s()
        serving = served if thread is None or now is None else max(0.0, min(now - thread, served))
        return max(0.0, used - serving - (cores - 1) * served), served

    PAUSE_WAIT_S = 10.0

    def pause(self) -> None:
        """Stop every process and thread of the submission while the judge times the baseline: the worker's process
        group, then every process of it (``processes``), found again until none is new (a child that called
        setsid() left the group, a double-forked one the tree: red teams' children loaded the CPU only while the
        worker was stopped). Then wait until every thread is stopped indeed: one inside a long system call runs on
        until the call returns (a red team's mmap(MAP_POPULATE) of 24 GiB kept a core busy for seconds); past
        PAUSE_WAIT_S the measurement is void (StillRunning). Not for a learner's kernel."""
        if self.process is not None and not self.paused and not self.dead:
            try:
                os.killpg(self.process.pid, signal.SIGSTOP)
                self.paused = True
            except ProcessLookupError:
                return
            self.stopped = set()
            for _ in range(10):  # a stopped process forks no more: new ones run out fast
                new = self.processes() - self.stopped
                if not new:
                    break
                for pid in new:
                    _signal(pid, signal.SIGSTOP)
                self.stopped |= new
            else:  # still new ones: a process that forks and exits in a loop moves on faster than it is stopped
                raise StillRunning("new processes of the submission kept appearing as fast as they were stopped "
                                   "(a process that forks and exits in a loop?)")
            deadline = time.monotonic() + self.PAUSE_WAIT_S
            while True:
                running = [pid for pid in self.stopped if any(row and row[0] not in _STOPPED
                                                              for row in _tasks_stat(pid))]
                if not running:
                    break
                if time.monotonic() > deadline:
                    raise StillRunning(f"{len(running)} process(es) of the submission kept running for "
                                       f"{self.PAUSE_WAIT_S:g} s after they were stopped (inside a long system "
                                       "call?)")
                time.sleep(0.005)
            self.paused_ticks = _cpu_ticks(self.stopped)

    def resume(self) -> float:
        """Continue the submission; returns the CPU seconds its processes used while paused (0 when none ran)."""
        ran = 0.0
        if self.process is not None and self.paused:
            ran = max(0, _cpu_ticks(self.stopped) - self.paused_ticks) / os.sysconf("SC_CLK_TCK")
            for pid in self.stopped:
                _signal(pid, signal.SIGCONT)
            try:
                os.killpg(self.process.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            self.paused = False
        return ran

    def kill(self, why: str = "") -> None:
        self.dead = self.dead or why or "the grading ended"
        if self.process is not None:
            doomed = self.processes()
            for pid in doomed:  # those that left the group (setsid) or the tree (double fork) too
                _signal(pid, signal.SIGKILL)
            try:  # the whole process group: nothing the submission started outlives its grading
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            adopted = doomed & set(_children().get(os.getpid(), ())) - {self.process.pid}
            deadline = time.monotonic() + 2
            while adopted and time.monotonic() < deadline:  # orphans the judge adopted: reap them, leave no zombie
                for pid in list(adopted):
                    try:
                        if os.waitpid(pid, os.WNOHANG)[0]:
                            adopted.discard(pid)
                    except ChildProcessError:
                        adopted.discard(pid)
                time.sleep(0.01)
        if self.pool_dir:  # whatever the worker wrote there goes with the grading
            shutil.rmtree(self.pool_dir, ignore_errors=True)
        if self.cpu_group is not None and self.process is not None and self.process.poll() is not None:
            self.cpu_group.close()  # empty now: everything in it was killed and reaped
            self.cpu_group = None
        if self.process is not None and self.process.poll() is not None:
            self._private = None  # the worker's mappings are gone: its pools' memory can go back

    def close(self, result: dict | None = None) -> None:
        if not self.dead:
            try:
                self.resume()
                self.call("bye", timeout=30, result=result)
            except WorkerGone:
                pass
        self.kill("the grading ended")
        self.end.close()
        for scratch in self.owned_scratch:  # a restart's folders (the first is the caller's)
            shutil.rmtree(scratch, ignore_errors=True)


# ---- the grading context: what a check gets ----

@dataclass
class GradeContext:
    exercise: Exercise
    session: Session
    device: torch.device
    secret: str
    policy: Policy = field(default_factory=Policy)
    pools: list[Pool] = field(default_factory=list)
    prepared: dict = field(default_factory=dict)  # what Exercise.prepare built before the worker existed
    notes: dict = field(default_factory=dict)  # what a check measured for a later one (Check.uses)
    sources: list[str] | None = None  # the submission's code as the judge read it (never the worker's account of it)
    cleanups: list = field(default_factory=list)  # run when the check (and its diagnosis) ends, however it ended
    diagnose: bool = True  # run checks' diagnoses (not on nbgrader's hidden stream: its notes are shown nowhere)

    @property
    def cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def size(self) -> str:
        return "full" if self.cuda else "smoke"

    def seed(self, purpose: str, index: int = 0) -> int:
        """A seed derived from the secret: without it, hidden inputs cannot be predicted."""
        return seed_for(self.exercise.id, purpose, index, self.secret)

    def generator(self, purpose: str, index: int = 0, device=None) -> torch.Generator:
        return generator(self.exercise.id, purpose, index, self.secret, device or self.device)

    def gate(self, gate: float | None = None, over: str | None = None) -> float:
        """The speed gate on this device (``gate`` over ``over``; default: the exercise's over its baseline); raises
        NeedsGPU where the gate cannot apply."""
        gate = self.exercise.speed_gate if gate is None else gate
        if self.cuda:
            return gate
        if self.policy.cpu_gate is not None:
            return self.policy.cpu_gate
        raise NeedsGPU(f"needs a CUDA GPU — not graded here (this machine has none); on a GPU it requires "
                       f"{gate:g}x over {over or self.exercise.baseline}")

    # ---- calling into the worker ----
    def call(self, fn, *args, what: str, hint: str = "", **kwargs) -> Remote:
        """Invoke ``fn`` in the worker; an exception of the submission becomes CheckFailed naming ``what``."""
        try:
            return self.session.invoke(fn, *args, device=self.device, **kwargs)
        except RemoteError as err:
            if err.not_implemented:
                name = what.split("(")[0]
                raise CheckFailed(f"{name} is not written yet (it raises NotImplementedError)",
                                  "replace `raise NotImplementedError()` with your code") from None
            if err.type == "OutputError":
                raise CheckFailed(f"{what} {err.message}", "return one tensor like the reference's, computed from "
                                  "that call's input") from None
            if err.type == "OutOfMemoryError":
                raise CheckFailed(f"{what} ran out of GPU memory: {err.first_line()}",
                                  "free what you keep alive (caches, references to outputs)") from None
            raise CheckFailed(f"{what} raised {err.describe()}", hint) from err

    def entry(self, name: str, *args, what: str | None = None, **kwargs) -> Remote:
        """Call the submission's ``name(*args)`` and keep the result in the worker."""
        return self.call(Entry(name), *args, what=what or f"{name}(...)", **kwargs)

    def callable_result(self, remote: Remote, what: str) -> Remote:
        if not remote.callable:
            raise CheckFailed(f"{what} must return a function, got {remote.value.get('type', '?')}")
        return remote

    # ---- shared memory ----
    def pool(self, numel: int, dtype=torch.float32) -> Pool:
        pool = Pool(numel, dtype, self.device, self.session.pool_dir, self.session.private_pool(self.device))
        self.pools.append(pool)
        self.session.share(pool)
        return pool

    def host_page(self, numel: int, dtype=torch.int32) -> tuple[Pool, Slot]:
        """A pool in host memory shared with the worker (sealed shared memory), whatever the device, as one slot: a
        page of flags both sides read and write while a request runs (exercise 01's paced workload)."""
        pool = Pool(numel, dtype, "cpu", self.session.pool_dir)
        pool.tensor.zero_()
        self.pools.append(pool)
        self.session.share(pool)
        return pool, pool.alloc((pool.numel,))

    def put(self, tensors) -> list[Slot]:
        """Copy judge-side tensors into new shared pools, one each (arguments never share storage); return
        their slots (the worker's arguments)."""
        slots = []
        for t in tensors:
            pool = self.pool(t.numel(), t.dtype)
            slots.append(pool.alloc(t.shape))
            pool.view(slots[-1]).copy_(t)
        synchronize(self.device)
        return slots

    def view(self, slot: Slot) -> torch.Tensor:
        return next(p for p in self.pools if p.id == slot.pool).view(slot)

    def out_slots(self, shapes, dtype=torch.float32) -> list[Slot]:
        """Output slots, poisoned with NaN: a slot the worker never wrote cannot pass for a result."""
        shapes = [tuple(s) for s in shapes]
        pool = self.pool(sum(_numel(s) for s in shapes), dtype)
        slots = [pool.alloc(s) for s in shapes]
        pool.tensor.fill_(float("nan") if dtype.is_floating_point else 0)
        synchronize(self.device)
        return slots

    # ---- correctness trials ----
    def trials(self, fn: Entry | Ref, reference, cases: list[tuple[str, tuple]], tol: Tolerance, name: str,
               out_like=None, no_grad: bool = True) -> int:
        """Each case: the judge's reference on its own copies, the submission's ``fn`` on shared copies, the
        output compared from the judge's memory, the inputs checked unmodified: every earlier case's too, after
        each call (a red team zeroed the inputs it had kept at the next call)."""
        start, shown = len(self.pools), []  # shown: (label, the judge's copy, the shared slot) of every input so far
        for label, args in cases:
            mark = len(self.pools)
            expected = reference(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
            shape, dtype = out_like(args) if out_like else (expected.shape, expected.dtype)
            slots = self.put([a for a in args if isinstance(a, torch.Tensor)])
            worker_args, it = [], iter(slots)
            for a in args:
                worker_args.append(next(it) if isinstance(a, torch.Tensor) else a)
            out, = self.out_slots([shape], dtype)
            self.call(fn, *worker_args, into=out, keep=False, no_grad=no_grad, what=f"{name} on {label}")
            shown += [(label, i, a, s) for i, (a, s) in enumerate(zip([a for a in args if isinstance(a, torch.Tensor)],
                                                                       slots, strict=True))]
            for seen, i, a, s in shown:
                if not same_bits(self.view(s), a):
                    when = "" if seen == label else f", found after its call on {label}"
                    raise CheckFailed(f"{name} modified its input argument {i} in place (on {seen}{when})",
                                      "inputs belong to the caller: compute into new tensors (no `x.mul_()`, "
                                      "`x[...] =`, `out=x`), and keep no reference to write into later")
            check_outputs(self.view(out).clone(), expected, tol, f"{name}(...) on {label}")
            self.drop_pools(mark + len(slots))  # the output's pool; the inputs' stay shared until the last case
        self.drop_pools(start)
        return len(cases)

    def outputs_stay_valid(self, fn: Ref, reference, make_x, tol: Tolerance, name: str, hint: str,
                           window: tuple[int, int]) -> str:
        """A diagnosis: call ``fn`` on a number of fresh inputs drawn from the secret within ``window``, keeping
        every output in the worker; then have the worker read each back and compare it with the judge's reference.
        The read-back is the worker's own code: the finding is a note, never a verdict."""
        gen = torch.Generator().manual_seed(self.seed("stay-valid-calls"))
        calls = int(torch.randint(window[0], window[1] + 1, (), generator=gen))
        kept = []
        with torch.no_grad():
            for i in range(calls):
                x = make_x(i)
                slot, = self.put([x])
                kept.append((self.call(fn, slot, no_grad=True, what=f"{name} (call {i + 1})"), reference(x)))
            for j, (out, expected) in enumerate(kept):
                later = calls - j - 1
                into, = self.out_slots([expected.shape])
                try:  # CUDAGraph Trees refuse to read an output they have overwritten
                    self.session.invoke(Fn("autograder.core.blocks:same"), out.ref, into=into, keep=False,
                                        device=self.device)
                except RemoteError as err:
                    return (f"the output of call {j + 1}, read after {later} later calls, cannot be read: "
                            f"{err.describe()}; {hint}")
                try:
                    check_outputs(self.view(into).clone(), expected, tol, f"the output of call {j + 1}")
                except CheckFailed as err:
                    return f"{err.reason}, read after {later} later calls: it no longer holds its own values; {hint}"
        return f"all {calls} kept outputs still held their own values after the later calls"

    def drop_pools(self, since: int = 0) -> None:
        """Forget shared memory on both sides: every pool made after the first ``since``."""
        dropped = self.pools[since:]
        if dropped and not self.session.dead:
            self.session.call("unpool", ids=[p.id for p in dropped])
            for p in dropped:
                self.session.shared.pop(p.id, None)
        del self.pools[since:]


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def process_age_s() -> float | None:
    """Seconds since this process started (the kernel's clock, 10 ms steps), or None where /proc has no answer:
    what a judge spends before it grades (Python, torch and CUDA starting) shows in a class's unit times."""
    try:
        with open("/proc/self/stat") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime") as f:
            return round(max(0.0, float(f.read().split()[0]) - started), 2)
    except (OSError, ValueError, IndexError):
        return None


# ---- the loop over checks ----

def grade(exercise: Exercise, session: Session, load: dict, *, device, secret: str, policy: Policy,
          only: list[str] | None = None, progress=None, prepared: dict | None = None,
          reload=None, sources: list[str] | None = None, diagnose: bool = True) -> list[CheckResult]:
    """Run ``exercise``'s checks against the worker behind ``session``; never raises for bad code. ``reload``:
    called when a check left the worker dead (a hang killed at its call's limit, a crash), to give the checks
    after it a fresh worker: one function that never returns costs its own checks, not another function's."""
    ctx = GradeContext(exercise, session, torch.device(device), secret, policy, prepared=prepared or {},
                       sources=sources, diagnose=diagnose)
    ctx.notes["load_s"] = float(load.get("load_s") or 0.0)  # the judge's clock around loading the submission
    wanted = set(only or ())
    wanted |= {used for c in exercise.checks if c.id in wanted for used in c.uses}
    checks = [c for c in exercise.checks if only is None or c.id in wanted]
    results = []
    with warnings.catch_warnings():
        for text in QUIET_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        for i, check in enumerate(checks):
            if progress:
                progress(i, len(checks), check.title)
            results.append(run_check(check, ctx, load))
            if session.dead and reload and i + 1 < len(checks):
                reload()  # the checks after it get a worker of their own; it stays dead if that fails too
                ctx.notes["load_s"] = float(load.get("load_s") or 0.0)  # the longest load so far
    if progress:
        progress(len(checks), len(checks), "done")
    return results


def _texts(items, limit: int, count: int = MAX_REPORTED) -> list[str]:
    """A list of strings from a worker's reply, whatever it sent (a number, a dict, millions of items): at most
    ``count`` items of at most ``limit`` characters, shown as text."""
    items = items if isinstance(items, list) else [items] if items not in (None, "", [], {}) else []
    return [visible(str(item)[:limit]) for item in items[:count]]


# CPU a thread of the submission's left running may use over one check and still count as idle: a share of one
# core over the check's time, and at least a few clock ticks (/proc counts in ticks of 10 ms). A red team's honest
# threads: a metrics thread sleeping 0.5 s, 0.00 s; an access log writing a line per request, 0.06 s over 05's
# speed check on this CPU; a 200 Hz sampler, 0.08 s; a spinning side thread, a whole core.
IDLE_THREAD_CPU_S = 0.05
IDLE_THREAD_SHARE = 0.1


def _threads_mark(session) -> tuple:
    """Where a check's count of its threads' CPU starts: where the last check's ended (its diagnosis, between the
    two, is then counted too), unless the worker was replaced since; else now."""
    server = session.serving_pid()
    mark = session.threads_mark
    return mark if mark is not None and mark[0] == server else (server, session.thread_cpu_s(), time.monotonic())


def _threads_left(session, mark: tuple) -> tuple[list[str], list[str], float]:
    """The threads the worker reported during a check, split by the operating system's count of their CPU since
    ``mark`` (_threads_mark): (busy, idle), as text. A thread whose CPU the judge cannot read (it ended, or its id
    is not one of the worker's threads) counts as busy: the rule as it was."""
    server, (before, total_before), since = mark
    now, total = session.thread_cpu_s()
    if session.serving_pid() != server:  # the worker was replaced during the check: its threads start afresh
        before, total_before = {}, 0.0
    allowed = max(IDLE_THREAD_CPU_S, IDLE_THREAD_SHARE * (time.monotonic() - since))
    busy, idle, ended = [], [], []
    for name, tid in session.threads.values():
        if tid not in now:
            ended.append(name)
            continue
        used = now[tid] - before.get(tid, 0.0)
        (busy if used > allowed else idle).append(f"{name}: {used:.2f} s of CPU")
    if ended:
        # the process's CPU beyond its live threads' is its ended threads': all of it in the window is laid on
        # the reported threads that ended (with no count to read, they count as busy)
        gone = (None if total is None or total_before is None else
                total - total_before - sum(cpu - before.get(tid, 0.0) for tid, cpu in now.items()))
        text = (f"{', '.join(ended)}, ended during the check: "
                + ("its CPU unreadable" if gone is None else f"{max(gone, 0.0):.2f} s of CPU with every other "
                   "thread that ended then"))
        (busy if gone is None or gone > allowed else idle).append(text)
    return busy, idle, allowed


def run_check(check, ctx: GradeContext, load: dict) -> CheckResult:
    """The check's verdict (``check.run``: only facts the judge establishes decide it, audited against the requests
    it sent), then its diagnosis (``check.diagnose``: what the worker says about itself, shown as notes). Never
    raises for anything the worker sent: a reply the judge cannot use costs this check, not the grading."""
    session = ctx.session
    notes: list[str] = []

    def result(status, message, hint="", details=None, points=0.0):
        return CheckResult(check.id, check.title, check.kind, points, check.points, status, message, hint,
                           details or {}, trust_label(check), notes)

    def grader_error(err: GraderError) -> CheckResult:  # the grader broke its own rule: said as such, no points
        return result(FAILED, f"grader error: {err}", "this is a fault of the grader, not of your code: report it")

    def settle() -> None:  # the worker running again and the check's pools gone, however a phase ended
        session.resume()
        try:
            ctx.drop_pools()
        except WorkerGone:
            pass

    entries = load.get("entry_points", {})
    entries = entries if isinstance(entries, dict) else {}
    missing = [n for n in check.needs if not (isinstance(entries.get(n), dict) and entries[n].get("callable"))]
    if missing:
        errors = _texts(load.get("load_errors"), 500)
        return result(FAILED, f"no function named {', '.join(missing)} was defined"
                      + (f"; while your notebook ran, {'; '.join(errors)}" if errors else ""),
                      "define it with exactly this name (the checks look it up by name), and make every cell run")
    if load.get("changed"):
        return result(FAILED, "your code changed global torch settings when it was loaded, which would change "
                      "the precision or speed of what is compared: " + "; ".join(_texts(load["changed"], 300)),
                      _SETTINGS_HINT)
    if session.dead:
        return result(FAILED, session.dead)
    config = _texts(load.pop("config_changed", None), 300)  # said once, under the grading's first check
    if config:
        notes.append("your code set the compiler's configuration when it was loaded (" + "; ".join(config)[:300]
                     + "): the grader undid it before the checks, which compile with the course's configuration, "
                     "so it changes nothing here (make the change in the code itself)")
    changes_before, ledger_before = len(session.changes), len(session.ledger)
    session.threads.clear()
    threads_cpu = _threads_mark(session)
    start = _perf_counter()
    try:
        outcome = check.run(ctx)
        message, details = outcome if isinstance(outcome, tuple) else (outcome, {})
        details["check_s"] = _perf_counter() - start
        changes = session.changes[changes_before:]
        if changes:
            raise CheckFailed("your code changed global torch settings while it ran, which changes the precision "
                              "or speed of what is compared: " + "; ".join(dict.fromkeys(changes)), _SETTINGS_HINT)
        busy, idle, allowed = _threads_left(session, threads_cpu)
        if busy:
            raise CheckFailed(f"your code left background threads running that worked beside the grader's requests "
                              f"({'; '.join(busy)}, by the operating system's count over this check, where a thread "
                              f"may use a tenth of a core: {allowed:.2f} s): a check is graded only with none of your "
                              "threads working beside it (the grader cannot vouch for what they do)",
                              "stop and join your threads before your function returns, and compute each result "
                              "inside the call that returns it (a thread that only sleeps and logs may stay)")
        if idle:
            notes.append(f"your code left threads running ({'; '.join(idle)}): idle through this check by the "
                         f"operating system's count (up to {allowed:.2f} s, a tenth of a core), so not held against "
                         "it")
        verdict = result(PASSED, message, details=details, points=float(check.points))
    except CheckFailed as err:
        verdict = result(FAILED, err.reason, err.hint, err.details)
    except NeedsGPU as err:
        verdict = result(SKIPPED if ctx.policy.allow_skip else FAILED, str(err), "run the check on a machine with a "
                         "CUDA GPU")
    except Inconclusive as err:
        verdict = result(INCONCLUSIVE, str(err), "re-run on a quieter machine; nothing else should use the GPU",
                         err.details)
    except WorkerGone as err:
        verdict = result(FAILED, str(err))
    except RemoteError as err:
        verdict = result(FAILED, f"your code raised {err.describe()}",
                         "run the function on a small input in a cell of its own and read the traceback")
    except GraderError as err:  # a pool from the wrong memory, ...
        verdict = grader_error(err)
    except Exception as err:  # noqa: BLE001 - a reply the judge could not use (malformed), never a crash
        verdict = result(FAILED, f"this check could not be graded: {type(err).__name__}: {visible(str(err))[:300]} "
                         "(a reply from your process the grader could not use, or a fault of the grader's own)",
                         "if your code does not change the grader's functions, report this as a grader bug")
    finally:
        settle()
        session.threads_mark = (session.serving_pid(), session.thread_cpu_s(), time.monotonic())  # the next's start
    try:
        audit(check, [name for name, _ in session.ledger[ledger_before:]])
    except GraderError as err:  # a verdict that used an observation or an undeclared request
        return grader_error(err)
    try:
        if check.diagnose is not None and ctx.diagnose and not session.dead:
            try:
                notes.extend(visible(str(n))[:1000] for n in check.diagnose(ctx) or [])
                # figures a diagnosis read from the worker (GPU busy): in the details, for the card and the GPU
                # table, which say whose word they are; never in the verdict
                verdict.details.update(ctx.notes.pop("diagnosed", {}))
            except Exception as err:  # noqa: BLE001 - a diagnosis explains; it never fails a check
                notes.append(f"(no diagnosis: {visible(type(err).__name__)}: {visible(str(err))[:200]})")
            finally:
                settle()
    finally:
        while ctx.cleanups:
            ctx.cleanups.pop()()
    return verdict


_SETTINGS_HINT = ("leave thread counts, matmul precision (TF32), cuDNN flags, grad mode and the compiler stance as "
                  "they are")


# ---- the judge's own process ----

_continued = [0]


def _on_continue(signum, frame) -> None:
    _continued[0] += 1


def watch_stops() -> None:
    """Count SIGCONTs: a process stopped and continued while it timed something (by another process of the same
    user, say) has a void measurement. Signal handlers can only be set in the main thread; elsewhere nothing."""
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGCONT, _on_continue)


def stops() -> int:
    return _continued[0]


def isolate_judge_caches() -> Path:
    """Give this judge process compile caches of its own, apart from every worker's, in a fresh directory (set
    through os.environ, which /proc/<pid>/environ does not show). Call it before the first compile."""
    private = Path(tempfile.mkdtemp(prefix="autograder-judge-"))
    # removed when the judge ends: a class of 300 leaves 1800 judges' kernels in /tmp otherwise
    atexit.register(shutil.rmtree, private, True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(private / "inductor")
    os.environ["TRITON_CACHE_DIR"] = str(private / "triton")
    return private


def warm_judge(device) -> None:
    """Import what the judge's own compiles need (Dynamo's backends, Inductor's code generation for ``device``)
    by compiling a tiny function, before any worker exists: modules imported later could have been edited by
    then."""
    fn = torch.compile(lambda x: torch.nn.functional.gelu(x) * 2 + 1)
    fn(torch.randn(8, device=device))
    torch._dynamo.reset()


def late_imports(before: set[str]) -> list[str]:
    """Modules this judge imported since ``before`` (the moment its first worker started), but for the kernels it
    generated itself into its own cache (Inductor's ``compile_tasks``): code a submission could have edited by then
    (unsandboxed, the site-packages are the same user's). What the judge compiles it imports first (warm_judge,
    Exercise.judge_compiles); a report lists any other, so that a test or a reviewer sees it."""
    return sorted(m for m in set(sys.modules) - before if ".compile_tasks." not in m)


# ---- grading a file ----

def package_digest() -> str:
    """A hash of the grader's own source files, to notice a submission that edits them."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def over_load_budget(budget_s: float, stopped: str) -> str:
    """A load stopped at the exercise's compile budget, in the judge's words (its clock), then the worker's state."""
    return (f"loading your code ran past {budget_s:g} s, the exercise's whole compile budget, which counts loading "
            f"(a compile, or a compile cache warmed, at import is still a compile); it was stopped there. "
            f"When stopped: {stopped}")


def grade_session(exercise: Exercise, session: Session, *, device, secret: str, policy: Policy,
                  only: list[str] | None = None, hidden: bool = False, sources: list[str] | None = None,
                  progress=None, prepared: dict | None = None) -> Report:
    """Load (unless the worker is a live kernel) and grade; the hidden checks too when asked."""
    start = time.perf_counter()
    session.compile_modes = compile_modes(sources or [])
    if policy.timeout is None:  # the session's own (a live kernel's judge sets one)
        policy = dataclasses.replace(policy, timeout=session._limit())
    load_limit = policy.timeout
    if exercise.load_budget is not None:
        try:
            load_limit = min(policy.timeout, exercise.load_budget())
        except ValueError:  # an instructor's unreadable budget: the checks that use it say so
            pass
    loading = None
    try:
        session.call("hello", timeout=120)
        loading = time.perf_counter()
        load = session.call("load", timeout=load_limit, sources=sources or [],
                            entry_points=list(exercise.entry_points))
    except WorkerGone as err:
        if loading is not None and load_limit < policy.timeout and time.perf_counter() - loading >= load_limit:
            return Report.failed(exercise, over_load_budget(load_limit, str(err)),
                                 "compile when your functions are called, not at import, and only the graphs the "
                                 "task needs: a few compile in seconds", time.perf_counter() - start, policy.allow_skip,
                                 environment())
        return Report.failed(exercise, str(err), "run each cell yourself and check that it finishes",
                             time.perf_counter() - start, policy.allow_skip, environment())
    if "fatal" in load:
        return Report.failed(exercise, visible(str(load["fatal"])[:2000]), "", time.perf_counter() - start,
                             policy.allow_skip, environment())
    load_s = time.perf_counter() - start
    load["load_s"] = load_s  # for checks that charge it (exercise 03's compile budget: a compile at import)

    def reload() -> None:
        """The submission loaded again into a fresh worker (``load`` updated in place), at most MAX_RESTARTS
        times and only with time left: each death already cost its check a call's limit."""
        if session.process is None or session.restarts >= MAX_RESTARTS \
                or session.deadline - time.monotonic() < RESTART_MIN_LEFT_S:
            return
        session.restart()
        reloaded = time.perf_counter()
        try:
            session.call("hello", timeout=120)
            again = session.call("load", timeout=load_limit, sources=sources or [],
                                 entry_points=list(exercise.entry_points))
        except WorkerGone:
            return
        if "fatal" in again:
            session.kill(str(again["fatal"]))
            return
        # a budget charges the longest load: a restarted worker's slow import is still an import
        longest = max(float(load.get("load_s") or 0.0), time.perf_counter() - reloaded)
        load.clear()
        load.update({**again, "load_s": longest})

    results = grade(exercise, session, load, device=device, secret=secret, policy=policy, only=only,
                    progress=progress, prepared=prepared, reload=reload, sources=sources)
    report = Report(exercise.id, results, {**environment(), "load_s": load_s}, 0.0, policy.allow_skip)
    if hidden:
        report.hidden = grade(exercise, session, load, device=device, secret=secret + HIDDEN, policy=policy,
                              only=list(exercise.hidden_checks), reload=reload, sources=sources, diagnose=False)
    if session.restarts:
        report.environment["worker_restarts"] = session.restarts
    report.seconds = time.perf_counter() - start
    return report


def grade_file(exercise: Exercise, path: str | Path, *, policy: Policy | None = None, overrides=(),
               device: str | None = None, secret: str | None = None, only: list[str] | None = None,
               hidden: bool = False) -> Report:
    """Grade the notebook or .py at ``path`` (``overrides``: .py files run after it, how the known-wrong and
    cheating cases are built on a reference solution) in a fresh worker process, judged here. This process
    must be trusted: it runs no submission code, and must not be a kernel that has run any."""
    policy = policy or Policy()
    secret = secret or grading_secret()
    device = torch.device(device) if device else default_device()
    start, startup_s = time.perf_counter(), process_age_s()
    try:
        sources = submission_code(Path(path)) + [Path(o).read_text() for o in overrides]
    except SubmissionError as err:
        return Report.failed(exercise, str(err), "", 0.0, policy.allow_skip, environment())
    if policy.timeout is None:
        policy = dataclasses.replace(policy, timeout=grading_limit(sources))
    digest_before = package_digest()
    watch_stops()
    # What the judge compiles and imports, it does before any worker exists: nothing the submission writes
    # (a compile cache entry, a module file) can be there yet when the judge reads it.
    prepared = exercise.prepare(device, secret) if exercise.prepare else {}
    with torch.autograd.profiler.record_function("judge warm-up"):  # on first use it imports part of the profiler
        pass  # (torch 2.13), and an optimizer's step runs inside one: exercise 02's judge trains the reference
    with tempfile.TemporaryDirectory(prefix="autograder-") as scratch:
        imported = set(sys.modules)
        session = Session.spawn(timeout=policy.timeout, scratch=Path(scratch))
        session.timeout = policy.timeout
        try:
            report = grade_session(exercise, session, device=device, secret=secret, policy=policy, only=only,
                                   hidden=hidden, sources=sources, prepared=prepared)
        finally:
            session.close()
    report.seconds = time.perf_counter() - start
    report.environment["startup_s"] = startup_s  # the judge process's life before this grading: Python, torch, CUDA
    report.environment["limit_s"] = policy.timeout
    report.environment["sandbox"] = sandbox.describe(gpu=torch.cuda.is_available())
    late = late_imports(imported)
    if late:
        report.environment["late_imports"] = late
    if package_digest() != digest_before:
        # Said both ways: in the sandbox the package is read-only, so there the change came from outside (someone
        # editing the course while it graded); a grade is void either way, and a rerun settles which.
        return Report.failed(exercise, "the grader's own files changed while it graded: the submission modified "
                             "the grader's own files, or someone edited the course meanwhile; all checks fail",
                             "never write to the course's autograder/ folder; if you did not, grade again",
                             report.seconds, policy.allow_skip, report.environment)
    return report


__all__ = ["PASSED", "FAILED", "SKIPPED", "INCONCLUSIVE", "Fn", "Entry", "Ref", "Slot", "Session", "GradeContext",
           "Policy", "Remote", "RemoteError", "grade", "grade_file", "grade_session"]
