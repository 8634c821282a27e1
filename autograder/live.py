"""Grading the functions a learner defined in their kernel, with the verdict made outside it.

The kernel is the worker: it starts a judge process (``python -m autograder.live FD``), serves the judge's
requests on the live namespace (``autograder.core.worker.Worker``) and receives the report when the judge
is done. The judge times, verifies and decides; the kernel only runs the learner's code. Self-study has no
stakes, so the kernel is neither paused nor killed (a kernel is the learner's own, and Jupyter watches it).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass

from autograder.core.protocol import Report

JUDGE_TIMEOUT_S = 1800


@dataclass
class LiveRequest:
    """What the kernel asks of the judge it starts (JSON on the judge's stdin)."""

    exercise: str
    allow_skip: bool = False
    only: list[str] | None = None
    hidden_stream: bool = False  # grade ``only`` on nbgrader's hidden stream instead
    device: str | None = None
    # the cells the kernel ran, in order (IPython's input history): the judge's own copy of the learner's code, for
    # what it ships to a fresh process (exercise 06); the judge never asks the kernel for a source
    sources: list[str] | None = None


def kernel_sources(namespace: dict) -> list[str] | None:
    """The cells a kernel ran, in order, as plain Python (IPython keeps them in ``In``); None outside IPython."""
    from autograder.core.submission import plain_python

    history = namespace.get("In")
    if not isinstance(history, list):
        return None
    return [plain_python(str(cell)) for cell in history[1:]]


def grade_live(request: LiveRequest, namespace: dict, progress=None) -> Report:
    """Serve a judge process on ``namespace`` and return its report (kernel side)."""
    import tempfile
    from multiprocessing.connection import Connection

    from autograder.core.grading import worker_env
    from autograder.core.wire import WorkerEnd, use_shared_memory_files
    from autograder.core.worker import Worker

    use_shared_memory_files()
    if request.sources is None:
        request.sources = kernel_sources(namespace)
    ours, theirs = socket.socketpair()
    env = dict(worker_env())
    env.pop("AUTOGRADER_WORKER", None)
    for name in ("COURSE_GRADING_SECRET", "COURSE_PROGRESS_FILE"):
        if name in os.environ:
            env[name] = os.environ[name]
    # The judge's output goes to a file, not a pipe: a daemon it starts (torch's shared-memory manager) inherits
    # its stdout and would keep a pipe open long after the judge is gone.
    log = tempfile.TemporaryFile(mode="w+")
    judge = subprocess.Popen([sys.executable, "-m", "autograder.live", str(theirs.fileno())],
                             pass_fds=[theirs.fileno()], env=env, stdin=subprocess.PIPE, stdout=log,
                             stderr=subprocess.STDOUT, text=True)
    theirs.close()
    judge.stdin.write(json.dumps(asdict(request)))
    judge.stdin.close()
    worker = Worker(namespace)
    worker.on_progress = progress
    try:
        result = worker.serve(WorkerEnd(Connection(ours.detach())))
    finally:
        try:
            judge.wait(timeout=60)
        except subprocess.TimeoutExpired:
            judge.kill()
        log.seek(0)
        output = log.read()
        log.close()
    if not isinstance(result, str):
        tail = "\n".join((output or "").strip().splitlines()[-8:])
        raise RuntimeError(f"the grader's judge process ended without a report (exit code {judge.returncode}):\n"
                           f"{tail}")
    return Report.from_json(result)


def main() -> int:
    """The judge: read the request, grade the kernel behind the socket, send the report back with goodbye."""
    from multiprocessing.connection import Connection

    import torch

    from autograder.core.correctness import HIDDEN, grading_secret
    from autograder.core.grading import Policy, Session, grade_session
    from autograder.core.wire import JudgeEnd, use_shared_memory_files
    from autograder.exercises import get_exercise

    use_shared_memory_files()
    request = LiveRequest(**json.loads(sys.stdin.read()))
    exercise = get_exercise(request.exercise)
    session = Session(JudgeEnd(Connection(int(sys.argv[1]))), deadline=None)
    session.timeout = JUDGE_TIMEOUT_S
    import time

    session.deadline = time.monotonic() + JUDGE_TIMEOUT_S
    secret = grading_secret() + (HIDDEN if request.hidden_stream else "")
    device = torch.device(request.device or ("cuda" if torch.cuda.is_available() else "cpu"))

    def progress(done, total, label):
        try:
            session.call("progress", args=[done, total, label])
        except Exception:
            pass

    prepared = exercise.prepare(device, secret) if exercise.prepare and not request.hidden_stream else {}
    report = grade_session(exercise, session, device=device, secret=secret,
                           policy=Policy(allow_skip=request.allow_skip, timeout=JUDGE_TIMEOUT_S),
                           only=request.only, progress=progress, prepared=prepared, sources=request.sources)
    session.end.send({"op": "bye", "result": report.to_json()})
    try:
        session.end.receive(time.monotonic() + 30)
    except Exception:
        pass
    return 0


if __name__ == "__main__":
    from autograder.live import main as _main  # this module under its own name

    sys.exit(_main())
