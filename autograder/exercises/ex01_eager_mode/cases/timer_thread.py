# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: background threads | device: any | class: 4
# A thread of the submission's that is neither a target nor a subclass: a threading.Timer whose function
# starts the side loop only after loading (the thread waits in the standard library until then).
# Since 2026-11-29 a thread left running fails a check only if the operating system counts CPU for it over the
# check (an idle one is noted): the side loop below works (it stood for work with a 1 ms sleep before).
import threading
import time


def _work():  # work on the side: a compile ahead, a load to slow what is timed, ...
    sum(i * i for i in range(20_000))


def _side():
    while True:
        _work()
        time.sleep(0.001)


threading.Timer(0.2, _side).start()
