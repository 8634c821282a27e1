# outcome: passed | kind: honest | checks: few_graphs,outputs_match | gpu_checks: speed | reason: legitimate | device: any
# Found by an independent red team (2026-11-29, fourth session, CPU): a server that announces it is ready from a
# fire-and-forget thread (it waits 0.2 s, appends one line to a file and ends) failed few_graphs and speed (0/10 on
# 03): a thread seen alive, then ended, had no CPU count to read and counted as busy. The CPU of the threads that
# ended during a check is now the process's beyond its live threads'.
import os
import tempfile
import threading
import time

_ref = make_server  # noqa: F821


def make_server(model, traffic):
    handle = _ref(model, traffic)

    def announce():
        time.sleep(0.2)
        with open(os.path.join(tempfile.gettempdir(), "server-ready.log"), "a") as f:
            f.write(f"{time.time():.3f} ready: {len(traffic)} past requests\n")

    threading.Thread(target=announce, name="announce", daemon=True).start()
    return handle
