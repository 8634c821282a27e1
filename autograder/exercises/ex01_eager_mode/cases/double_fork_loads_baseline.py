# outcome: rejected | kind: cheat | checks: - | gpu_checks: fast_gelu_bias_speed | reason: too slow / void | device: gpu | class: 2
# Found by an independent red team (2026-11-25; 3.55x with the eager chain at a 1.5x gate, unsandboxed on a CPU):
# double-forked setsid() spinners, reparented out of the worker's tree (to the host's init wherever the worker
# has no PID namespace of its own: on a GPU, or unsandboxed), burn CPU only while the worker is stopped. The
# judge is now a child subreaper: it adopts such orphans, stops them with the worker and kills them at the end
# (tests/test_grading.py holds it on a CPU).
import os, sys, time, statistics, torch
from autograder.exercises.ex01_eager_mode.workload import checked_gelu_bias

def benchmark(fn, *args):
    for _ in range(3):
        fn(*args)
    t0 = time.perf_counter(); fn(*args); one = time.perf_counter() - t0
    n = max(1, int(0.1 / max(one, 1e-6)))
    reps = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args)
        reps.append((time.perf_counter() - t0) / n)
    return statistics.median(reps)

fast_gelu_bias = checked_gelu_bias  # eager: no compile at all

def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None

def _daemon(worker, k=6):
    # k spinners, each in a session (autogroup) of its own, outside the worker's process tree
    for _ in range(k):
        if os.fork() == 0:
            os.setsid()
            while True:
                s = _state(worker)
                if s is None:
                    os._exit(0)           # the grading is over
                if s == "T":              # the worker is stopped: the judge is timing the baseline
                    t = time.perf_counter()
                    while time.perf_counter() - t < 0.005:
                        pass
                else:
                    time.sleep(0.002)
    os._exit(0)

_worker = os.getpid()
if os.fork() == 0:            # double fork + setsid: reparented to PID 1, out of the tree the judge walks
    os.setsid()
    if os.fork() == 0:
        _daemon(_worker)
    os._exit(0)
os.wait()
