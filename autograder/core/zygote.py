"""Workers forked from a template process that has done a worker's imports already (unsandboxed CPU gradings).

A worker started from nothing spends about 4 CPU-seconds importing torch, Dynamo and its own modules before it
runs a line of the submission; a judge that grades many submissions in one process (`make test`'s red-team net:
about a hundred gradings) pays that every time. Where it may, the judge instead starts one template per worker
environment (``python -m autograder.core.zygote FD``, started the way the worker would be) that makes those
imports once, and forks each worker from it. The worker is then the code a fresh worker would be after its
imports, in that state: the template runs no submission code and holds no secret (its environment is the
worker's), and the worker module itself runs afresh as ``__main__`` in the forked process.

The worker keeps its place in the judge's process tree: the template forks a middle process, which forks the
worker and exits, so the worker is adopted by the judge (a child subreaper, ``grading._become_subreaper``) in a
session and process group of its own, as ``subprocess.Popen(start_new_session=True)`` would make it, and the judge
pauses, accounts and kills it as it does a worker it started. The template is non-dumpable (no process of the same
user without CAP_SYS_PTRACE can attach to it or write its memory to poison the next worker) and imports nothing
once it is ready. What a process of the same user can change from outside all the same (limits, scheduling,
allowed CPUs: ``inherited``) the judge compares with the template's at its start, before each fork and in the
forked worker; a worker that stops, kills or changes the template only makes the next worker start from nothing.

Not used for a judge's first worker (a judge that grades once, the CLI's, would gain nothing), where the sandbox is
on (a fresh sandbox per grading), where there is a GPU (the GPU figures were measured with workers started from
nothing), where the template has more than one thread after its imports (a fork copies only the calling thread:
an OpenMP pool would be lost; tried once per environment), or with ``COURSE_FORK_WORKERS=0``. A forked worker's
command line (/proc/PID/cmdline) is the template's.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from autograder.core import sandbox

ENV = "COURSE_FORK_WORKERS"  # 0: every worker starts from nothing
READY_TIMEOUT_S = 180  # the template's imports, on a loaded machine
FORK_TIMEOUT_S = 30


def _prctl(option: int, value: int) -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4


# ---- the template process ----

def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def _become_worker(request: dict, fds: list[int]) -> None:
    """In the forked worker: become the process ``python -m autograder.core.worker FD`` would be, in a session of
    its own, and run the worker module as ``__main__`` (its exit is the interpreter's, as in a fresh process)."""
    import runpy

    sock, log = fds
    os.setsid()
    _prctl(PR_SET_DUMPABLE, 1)  # a worker started from nothing is dumpable
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(devnull)
    os.close(log)
    os.chdir(request["cwd"])
    sys.path[0] = os.getcwd()  # `python -m` puts its working directory first
    sys.argv = ["-m", str(sock)]  # run_module puts the module's file in argv[0]
    runpy.run_module("autograder.core.worker", run_name="__main__", alter_sys=True)


def serve(control: socket.socket) -> tuple[dict, list[int]] | None:
    """Fork a worker for every request the judge sends, until it closes the control socket (then None). In a
    forked worker it returns that worker's request and descriptors, outside every loop and handler of the
    template's, with none of the template's own descriptors left open."""
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 16, 2)
        except OSError:
            return None
        if not data:
            return None  # the judge is gone
        try:
            request = json.loads(data)
            if len(fds) != 2 or not isinstance(request, dict) or not isinstance(request.get("cwd"), str):
                raise ValueError("a request needs a working folder and two descriptors")
        except ValueError as err:
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"error": str(err)}).encode())
            continue
        report_r, report_w = os.pipe()
        middle = os.fork()
        if middle == 0:  # the middle process: fork the worker, say its pid, exit (the judge adopts the worker)
            os.close(report_r)
            try:
                worker = os.fork()
            except OSError:
                os._exit(1)
            if worker:
                os.write(report_w, str(worker).encode())
                os._exit(0)
            os.close(report_w)
            control.close()
            return request, fds
        os.close(report_w)
        for fd in fds:
            os.close(fd)
        with os.fdopen(report_r, "rb") as report:
            pid = report.read().decode()
        os.waitpid(middle, 0)
        control.send(json.dumps({"pid": int(pid)} if pid.isdigit() else {"error": "no worker"}).encode())


def main() -> int:
    control = socket.socket(fileno=int(sys.argv[1]))
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with the judge
    _prctl(PR_SET_DUMPABLE, 0)
    import autograder.core.worker  # noqa: F401 - every import a worker makes before the submission
    from autograder.core.wire import use_shared_memory_files

    use_shared_memory_files()
    control.send(json.dumps({"ready": True, "threads": _threads()}).encode())
    if _threads() != 1:
        return 0
    forked = serve(control)
    if forked is not None:
        _become_worker(*forked)
    return 0


# ---- the judge's side ----

class ForkedWorker:
    """What the judge keeps of a worker forked from a template: ``subprocess.Popen``'s pid, poll and wait. The
    worker is the judge's child (adopted), so the judge reaps it."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: gone, its status unknown
                self.returncode = -signal.SIGKILL
                return self.returncode
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(0.005)
        return self.returncode


class Template:
    """A template process for one worker command line and environment (see the module's doc)."""

    def __init__(self, argv: list[str], env: dict):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # one message per recv
        self.log = tempfile.TemporaryFile()
        self.folder = tempfile.mkdtemp(prefix="autograder-template-")  # its `python -m` folder: empty
        self.process = subprocess.Popen([*argv, str(theirs.fileno())], pass_fds=[theirs.fileno()], env=env,
                                        cwd=self.folder, start_new_session=True, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        theirs.close()
        self.control = ours
        reply = self._reply(READY_TIMEOUT_S)
        self.usable = bool(reply and reply.get("ready") and reply.get("threads") == 1)
        self.state = inherited(self.process.pid)  # as it started, before any worker existed
        if not self.usable or self.state is None:
            self.close()

    def _reply(self, timeout: float) -> dict | None:
        self.control.settimeout(timeout)
        try:
            data = self.control.recv(1 << 16)
            return json.loads(data) if data else None
        except (OSError, ValueError):
            return None

    def alive(self) -> bool:
        return self.usable and self.process.poll() is None

    def fork(self, sock: int, log: int, cwd: str) -> ForkedWorker | None:
        """A worker serving ``sock``, writing to ``log``, in ``cwd``; None if the template failed or was changed
        from outside since it started (closed then: the caller starts the worker from nothing)."""
        if inherited(self.process.pid) != self.state:
            self.close()
            return None
        try:
            socket.send_fds(self.control, [json.dumps({"cwd": cwd}).encode()], [sock, log])
        except OSError:
            self.close()
            return None
        reply = self._reply(FORK_TIMEOUT_S)
        pid = reply.get("pid") if reply else None
        if not isinstance(pid, int):
            self.close()
            return None
        # Adopted by the judge (else not a worker it can manage: not a subreaper?), and forked with the template's
        # state as it started (changed between the check above and the fork: by a process left from a grading).
        if _parent(pid) != os.getpid() or inherited(pid) != self.state:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            self.close()
            return None
        return ForkedWorker(pid)

    def close(self) -> None:
        self.usable = False
        self.control.close()
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def inherited(pid: int) -> tuple | None:
    """What a fork inherits that another process of the same user can change from outside, non-dumpable or not
    (a red team's worker set its template to SCHED_IDLE, one CPU and RLIMIT_FSIZE 0, and a later submission's
    worker inherited them): resource limits, scheduling policy and nice value, allowed CPUs and memory nodes,
    cgroup, OOM score adjustment. None if the process is gone."""
    fields = sandbox.proc_stat(pid)
    try:
        state = [fields[16], fields[17], fields[37], fields[38]]  # priority, nice, rt_priority, policy
        with open(f"/proc/{pid}/status") as f:
            state += [line for line in f if line.startswith(("Cpus_allowed_list", "Mems_allowed_list"))]
        for name in ("limits", "cgroup", "oom_score_adj"):
            with open(f"/proc/{pid}/{name}") as f:
                state.append(f.read())
        return tuple(state)
    except (TypeError, OSError, IndexError):  # gone
        return None


def _parent(pid: int) -> int | None:
    fields = sandbox.proc_stat(pid)
    return int(fields[1]) if fields else None


_templates: dict[tuple, Template | None] = {}  # (argv, env) -> its template (None: tried, not usable)


_workers_started = 0  # by this judge process


def wanted(gpu: bool, sandboxed: bool) -> bool:
    """Whether the judge's next worker should come from a template: only from a judge's second worker on (a judge
    that grades once, the CLI's, gains nothing from a template's imports), on Linux, without a GPU or the sandbox."""
    global _workers_started
    _workers_started += 1
    return (_workers_started > 1 and os.environ.get(ENV, "1") != "0" and not gpu and not sandboxed
            and sys.platform == "linux" and hasattr(socket, "send_fds"))


def template_for(argv: list[str], env: dict) -> Template | None:
    """The live template for this command line and environment, started if there is none (or it died); None where
    one cannot be had (tried once per command line and environment)."""
    key = (tuple(argv), tuple(sorted(env.items())))
    if key in _templates and _templates[key] is None:
        return None
    template = _templates.get(key)
    if template is None or not template.alive():
        template = Template(argv, env)
        _templates[key] = template if template.usable else None
    return _templates[key]


def template_pids() -> set[int]:
    """The pids of the live templates, which the judge leaves out of a worker's processes. Only live ones: a dead
    template is reaped here, and a process that later gets its pid (a submission's double-forked child, adopted by
    the judge) is the submission's, paused and killed with it."""
    return {t.process.pid for t in _templates.values() if t is not None and t.process.poll() is None}


@atexit.register
def _close_all() -> None:
    for template in _templates.values():
        if template is not None:
            template.close()


if __name__ == "__main__":
    sys.exit(main())
