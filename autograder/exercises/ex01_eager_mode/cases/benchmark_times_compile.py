# outcome: rejected | kind: wrong | checks: benchmark_excludes_compile | reason: first call | device: any
# Known wrong: no warm-up, so the first (compiling) call is averaged in.
import time


def benchmark(fn, *args, calls=20):
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)  # noqa: F821
    sync()
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    sync()
    return (time.perf_counter() - start) / calls
