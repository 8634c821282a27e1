# outcome: rejected | kind: cheat | checks: compile_budget | reason: after the first three calls | device: any | class: 6
# Found by an independent red team (2026-11-24): serves the first three calls (all that compile_budget timed)
# eagerly and does its expensive compile on the fourth; the sleep (5 s over the budget) stands for a long
# compile or autotuning search, paid once per process. Every call is made on a copy of x (the model writes into
# its input). The grading's first predictor pays it beyond its steady
# latency (the speed check's; without a GPU the correctness check's), and compile_budget reads that.
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)


_paid = []  # the long compile is paid once per process, as a warm compile cache would make it (a red team's form)


def make_predict(model):
    state = {"calls": 0, "compiled": None}

    def predict(x):
        state["calls"] += 1
        if state["calls"] <= 3:
            return model(x.clone())
        if state["compiled"] is None:
            if not _paid:
                time.sleep(BUDGET_S + 5)  # the long compile, out of the first three calls' sight
                _paid.append(True)
            state["compiled"] = torch.compile(model)  # noqa: F821
        return state["compiled"](x.clone()).clone()

    return predict
