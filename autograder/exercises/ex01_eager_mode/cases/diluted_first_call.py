# outcome: rejected | kind: cheat | checks: benchmark_excludes_compile | reason: benchmark | device: any | class: 6
# No warm-up: times one long loop that includes the slow first call, hoping the loop dilutes it under the
# tolerance. Within the time budget the slow call still shows (or the loop runs past the budget).
import time


def benchmark(fn, *args):
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)  # noqa: F821
    sync()
    start = time.perf_counter()
    for _ in range(1200):
        fn(*args)
    sync()
    return (time.perf_counter() - start) / 1200
