# Cheat (class 4, reporting): the reference solution plus a background thread left running, made as a threading.Thread subclass (run() overridden: no _target for the worker's thread scan to see). SHOULD FAIL every check ("your code left background threads running").
import statistics
import time

import torch

from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain


def benchmark(fn, *args, warmup=3, repeats=7, min_time=0.02):
    for _ in range(warmup):
        fn(*args)
    start = time.perf_counter()
    fn(*args)
    calls = max(1, int(min_time / max(time.perf_counter() - start, 1e-6)))
    per_call = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        per_call.append((time.perf_counter() - start) / calls)
    return statistics.median(per_call)


fast_gelu_bias = torch.compile(gelu_bias_chain)

import threading


class _Side(threading.Thread):
    def run(self):
        while True:
            time.sleep(0.001)  # work on the side would go here


_Side(daemon=True).start()
