# outcome: rejected | kind: wrong | checks: benchmark_known_durations | reason: benchmark returned | device: any
# Known wrong: times a pause between calls along with the calls (here on purpose: 10 ms of sleep per call), so the
# per-call figure is several times the workload's. The grader's CPU truth follows the pace of the calls only up
# to +50% (a loaded machine), so spacing calls out cannot make such a figure pass.
import statistics
import time


def benchmark(fn, *args, warmup=3, repeats=5, calls=5):
    for _ in range(warmup):
        fn(*args)
    per_call = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
            time.sleep(0.01)
        per_call.append((time.perf_counter() - start) / calls)
    return statistics.median(per_call)
