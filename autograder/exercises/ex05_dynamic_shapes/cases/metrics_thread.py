# outcome: passed | kind: honest | checks: few_graphs,outputs_match | gpu_checks: speed | reason: legitimate | device: any
# Found by an independent red team (2026-11-29, CPU): the reference's server with what a server has, a metrics
# thread that wakes every half second and logs how many requests were served. It failed few_graphs and speed (a
# thread of the submission's left running failed every check it was seen in). A thread left running now fails a
# check only if the operating system counts CPU for it over that check; this one is idle, and noted.
import threading
import time

_reference_make_server = make_server  # noqa: F821 - the reference solution's, defined before this file runs
metrics = []


def make_server(model, traffic):
    handle = _reference_make_server(model, traffic)

    def report():
        while True:
            time.sleep(0.5)
            metrics.append((time.monotonic(), model.requests))

    threading.Thread(target=report, name="metrics", daemon=True).start()
    return handle
