# outcome: rejected | kind: cheat | checks: - | gpu_checks: fast_gelu_bias_speed | reason: too slow / void | device: gpu | class: 2
# Found by an independent red team (2026-11-25, CPU, sandboxed; 2.2x-2.6x with the eager chain at a 1.5x gate):
# burner processes (each setsid(), its own scheduler autogroup) sit inside mmap(MAP_POPULATE) of 24 GiB of
# read-only zero pages, a system call SIGSTOP does not interrupt, exactly while the judge times the baseline.
# The pause now waits until every thread of the submission is stopped, and voids a baseline block during which
# any of its processes was charged CPU time (tests/test_grading.py holds both on a CPU; the CPU suite's gate is
# too low to show the speed effect, so the whole file is graded at the real gate on a GPU).
import os, sys, time, statistics, subprocess, torch
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

_SPAWNER = r'''
import os, mmap
F = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE
burners, buf = [], b""
while True:
    data = os.read(0, 4096)
    if not data:
        break
    buf += data
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        cmd = line.split()
        if cmd[0] == b"B":
            for _ in range(int(cmd[1])):
                pid = os.fork()
                if pid == 0:
                    try:
                        os.setsid()  # a session of its own: its own autogroup, as heavy as the judge's
                        mmap.mmap(-1, int(cmd[2]), flags=F, prot=mmap.PROT_READ)
                    finally:
                        os._exit(0)
                burners.append(pid)
        elif cmd[0] == b"K":
            for p in burners:
                try: os.kill(p, 9)
                except OSError: pass
            for p in burners:
                try: os.waitpid(p, 0)
                except OSError: pass
            burners = []
'''
_sp = subprocess.Popen([sys.executable, "-S", "-E", "-c", _SPAWNER], stdin=subprocess.PIPE,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
BURNERS = 6          # each in its own session, hence its own scheduler autogroup
SIZE = 24 << 30      # of address space, PROT_READ: populated with the shared zero page (no memory used)
_st = {"t": 0, "burning": False, "start": 0.0}

def _cmd(s):
    os.write(_sp.stdin.fileno(), s.encode())

def _burn():
    _cmd(f"B {BURNERS} {SIZE}\n"); _st["burning"] = True

def _kill():
    if _st["burning"]:
        _cmd("K\n"); _st["burning"] = False

PAD_S = 0.5  # warm-up calls padded to a constant time: the judge's warm-up ends after exactly 4 blocks

def fast_gelu_bias(x, bias):
    f = sys._getframe(1)
    idx = n = None
    if f.f_code.co_name == "run_block":
        loc = f.f_locals
        idx, n = loc["index"], len(loc["calls"])
    if idx == 0:
        _kill()
        _st["t"] += 1
        _st["start"] = time.perf_counter()
    out = checked_gelu_bias(x, bias)
    if idx is not None and idx == n - 1:
        b = _st["t"]
        if b <= 5:  # warm-up (4 blocks) and the trial block: constant duration
            while time.perf_counter() - _st["start"] < PAD_S:
                time.sleep(0.001)
        if b >= 5 and (b - 5) % 21 in (0, 14):  # a baseline window follows this block
            _burn()
    return out
