# outcome: rejected | kind: cheat | checks: compile_budget | reason: over the compile budget | device: any | class: 6
# Found by a review of the trust boundary (2026-11-27): requests that are not calls (a pool shared, a model built,
# the compile counters read) were untimed, inside the windows 03's compile budget charges. This submission serves
# its first calls at once and does its expensive work (a sleep of the budget + 5 s stands for a long compile or
# autotuning search) inside the worker's pool handler, once the speed check's blocks grow: the grader of 27c2e13
# passed its compile budget (4.7 s charged under a 15 s budget, CPU). Every request of the window is now charged
# (the judge's ledger of requests on its clock). It serves the default mode on a copy of x (the model writes into
# its input).
import os
import time

import autograder.core.worker as _w

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)
_state = {"calls": 0, "paid": False}
_real_pool = _w.Worker.op_pool


def _pool(self, msg):
    reply = _real_pool(self, msg)
    if _state["calls"] >= 3 and not _state["paid"]:
        _state["paid"] = True
        time.sleep(BUDGET_S + 5)  # the long compile, in a request that is not a call
    return reply


_w.Worker.op_pool = _pool


def make_predict(model):
    compiled = torch.compile(model)  # noqa: F821

    def predict(x):
        _state["calls"] += 1
        return compiled(x.clone())

    return predict
