# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: background threads | device: any | class: 4
# Found by an independent red team (2026-11-24): the reference solution plus a thread left running, made as a
# threading.Thread subclass whose run() it wrote, so the thread has no target for a scan of targets to see.
# Since 2026-11-29 a thread left running fails a check only if the operating system counts CPU for it over the
# check (an idle one is noted): the side loop below works (it stood for work with a 1 ms sleep before).
import threading
import time


def _work():  # work on the side: a compile ahead, a load to slow what is timed, ...
    sum(i * i for i in range(20_000))


class _Side(threading.Thread):
    def run(self):
        while True:
            _work()
            time.sleep(0.001)


_Side(daemon=True).start()
