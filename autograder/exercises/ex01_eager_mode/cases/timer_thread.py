# outcome: rejected | kind: cheat | checks: fast_gelu_bias_correct | reason: background threads | device: any | class: 4
# A thread of the submission's that is neither a target nor a subclass: a threading.Timer whose function
# starts the side loop only after loading (the thread waits in the standard library until then).
import threading
import time


def _side():
    while True:
        time.sleep(0.001)  # work on the side would go here


threading.Timer(0.2, _side).start()
