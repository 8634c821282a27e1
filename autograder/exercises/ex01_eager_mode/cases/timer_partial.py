# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: background threads | device: any | class: 4
# Found by an independent red team (2026-11-25): a threading.Timer whose function is a functools.partial of the
# submission's code (no __code__ of its own); while it waits, only the standard library is on its stack.
import functools
import threading
import time


def _side(period):
    while True:
        time.sleep(period)  # work on the side would go here


threading.Timer(30.0, functools.partial(_side, 0.001)).start()
