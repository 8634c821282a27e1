# outcome: rejected | kind: cheat | checks: compile_budget | reason: after the first three calls | device: any | class: 6
# Found by an independent red team (2026-11-24): serves the first three calls (all that compile_budget timed)
# eagerly and does its expensive compile on the fourth; the sleep (5 s over the budget) stands for a long
# compile or autotuning search. The speed check's predictor pays it beyond its steady latency, and compile_budget reads that.
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)


def make_predict(model):
    state = {"calls": 0, "compiled": None}

    def predict(x):
        state["calls"] += 1
        if state["calls"] <= 3:
            return model(x)
        if state["compiled"] is None:
            time.sleep(BUDGET_S + 5)  # the long compile, out of the first three calls' sight
            state["compiled"] = torch.compile(model)  # noqa: F821
        return state["compiled"](x).clone()

    return predict
