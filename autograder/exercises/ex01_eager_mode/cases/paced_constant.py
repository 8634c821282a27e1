# outcome: rejected | kind: cheat | checks: benchmark_known_durations | reason: the workload takes / called the workload | device: gpu | class: 4
# Found by an independent red team (on a CPU): benchmark() never measures. It returns a guessed period by call
# order and calls fn on a fixed schedule of that period, so that on a CPU the pace at which calls reach the
# grader (which may raise the truth there by up to half) follows the guess; it passed both benchmark checks on
# the CPU, which docs/THREAT_MODEL.md now states. On a GPU the truth is the grader's own measurement with the
# worker paused, and three durations over a 12x range leave a guess about one grading in 200.
import time

_n = [0]


def benchmark(fn, *args):
    _n[0] += 1
    period = 0.011 if _n[0] % 2 == 1 else 0.032  # a guess, not a measurement
    fn(*args)
    t0 = time.perf_counter()
    for k in range(1, 41):
        target = t0 + k * period
        while time.perf_counter() < target:
            time.sleep(0.0002)
        fn(*args)
    return period
