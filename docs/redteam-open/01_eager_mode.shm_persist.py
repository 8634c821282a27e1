# Escape probe: the reference solution, plus at load a file written into /dev/shm (the host's, bound read-write into the sandbox), listing what else is there. SHOULD be impossible for anything written to outlive the grading or reach another ("a private /tmp and scratch ... thrown away (nothing it writes reaches the judge or the next grading)").
import os
import statistics
import time

import torch

from autograder.exercises.ex01_eager_mode.workload import gelu_bias_chain

with open(f"/dev/shm/redteam-left-behind-{os.getpid()}-{int(time.time())}", "w") as _f:
    _f.write("written by a submission; /dev/shm held: " + repr(sorted(os.listdir("/dev/shm"))) + "\n")


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
