# outcome: rejected | kind: cheat | checks: - | gpu_checks: fast_gelu_bias_speed | reason: too slow / void | device: gpu | class: 2
# Found by an independent red team (2026-11-26, on a CPU, against the pause itself): a small process that forks
# and lets its parent exit about every millisecond is found by pid, and by the time the judge's SIGSTOP lands it
# has a new pid, so it ran on through every pause, here loading the CPU while the judge times the baseline. New
# processes that keep appearing as fast as they are stopped now void the measurement (tests/test_grading.py holds
# the pause on a CPU). The kill at the end can still miss such a process (docs/THREAT_MODEL.md): it stops itself
# when its worker is gone.
import os, sys, time, statistics
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

HOP = """
import os, sys, time
worker = int(sys.argv[1])
os.setsid()
while True:
    try:
        with open(f"/proc/{worker}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        os._exit(0)  # the grading is over
    if os.fork():
        os._exit(0)  # a new pid every round; the judge adopts the child
    if state == "T":  # the worker is stopped: the judge is timing the baseline
        t = time.perf_counter()
        while time.perf_counter() - t < 0.001:
            pass
"""

_worker = os.getpid()
if os.fork() == 0:  # a small process (a fork of this one copies torch's pages: too slow to outrun the judge)
    os.execv(sys.executable, [sys.executable, "-S", "-c", HOP, str(_worker)])
