# outcome: rejected | kind: wrong | checks: benchmark_known_durations,benchmark_excludes_compile | reason: synchronize | device: gpu
# Known wrong (on a GPU): never synchronizes, so it times kernel launches, not the work.
import statistics
import time


def benchmark(fn, *args, warmup=3, calls=20, repeats=5):
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)
