# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: background threads | device: any | class: 4
# Found by an independent red team (2026-11-25): a threading.Timer whose function is a functools.partial of the
# submission's code (no __code__ of its own); while it waits, only the standard library is on its stack.
# Since 2026-11-29 a thread left running fails a check only if the operating system counts CPU for it over the
# check (an idle one is noted): the side loop below works (it stood for work with a 1 ms sleep before), and the timer
# fires 0.2 s after loading, not 30 s (a timer still waiting is idle: its work, once it fires, is what is counted).
import functools
import threading
import time


def _work():  # work on the side: a compile ahead, a load to slow what is timed, ...
    sum(i * i for i in range(20_000))


def _side(period):
    while True:
        _work()
        time.sleep(period)


threading.Timer(0.2, functools.partial(_side, 0.001)).start()
