# Cheat (class 2/escape): fast_gelu_bias is the plain eager chain (~1.0x). At load, a forked child calls setsid() (leaving the worker's process group, so the judge's SIGSTOP does not reach it): it starts busy-loop processes and lets them run (SIGCONT) only while the worker is stopped, i.e. exactly while the judge times the baseline (SIGSTOP otherwise). SHOULD FAIL fast_gelu_bias_speed at the real 1.5x gate (graded with grade_gate.py, GATE=1.5).
import os
import signal
import statistics
import time

from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain


def _stopped(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return None


def _start_hogs():
    worker = os.getpid()
    if os.fork() != 0:
        return
    os.setsid()  # out of the worker's process group: killpg(SIGSTOP) no longer reaches us
    hogs = []
    for _ in range(2 * (os.cpu_count() or 2)):
        pid = os.fork()
        if pid == 0:
            os.kill(os.getpid(), signal.SIGSTOP)
            while True:
                pass
        hogs.append(pid)
    running = False
    while True:
        state = _stopped(worker)
        if state is None:
            for h in hogs:
                os.kill(h, signal.SIGKILL)
            os._exit(0)
        if state != running:
            for h in hogs:
                os.kill(h, signal.SIGCONT if state else signal.SIGSTOP)
            running = state
        time.sleep(0.0003)


_start_hogs()


def benchmark(fn, *args, warmup=3, repeats=7, calls=20):
    for _ in range(warmup):
        fn(*args)
    per = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        per.append((time.perf_counter() - t) / calls)
    return statistics.median(per)


def fast_gelu_bias(x, bias):
    return gelu_bias_chain(x, bias)
