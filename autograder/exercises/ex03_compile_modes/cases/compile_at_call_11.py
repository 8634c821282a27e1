# outcome: rejected | kind: cheat | checks: compile_budget | reason: over the compile budget | device: any | class: 6 | policy: learner
# Red team (2026, CPU, torch 2.13): a compile deferred to the 11th call of a predictor (a sleep of the budget + 5 s
# stands for it), paid once per process; served eagerly on a copy of x (only the budget is at stake). On a CPU
# graded as a learner grades (`python -m autograder grade`, no cpu_gate) no charged predictor reaches an 11th call:
# the correctness check makes 5 calls, compile_budget's own predictor 3 + LATER_CALLS (7); the predictor that does
# is the correctness check's diagnosis (stay_valid_diagnosis, 32-48 calls), which runs after check_correct has
# written predict_startup_s and is on no clock of the budget's (nor stopped between requests).
# Observed with the CLI on this CPU under COURSE_COMPILE_BUDGET_S=15 (a 20 s deferred compile): compile_budget
# PASSED (1/1), "make_predict and the first three calls took 11.0 s (budget 15 s ...); loading and the grading's
# first predictor spent 12.8 s beyond its steady latency" (4/10, 62.8 s). With Policy(cpu_gate=...) (the test suite)
# the timed speed check's warm-up reaches call 11 and charges it, so the suite does not see this.
# Fixed: without a speed check, the budget's own predictor makes as many calls as any predictor of the grading
# received (the diagnosis's 32-48 included), each beyond the steady latency charged; graded on the learner's path.
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)
_paid = []  # paid once per process, as a warm compile cache would make it


def make_predict(model):
    state = {"calls": 0}

    def predict(x):
        state["calls"] += 1
        if state["calls"] == 11 and not _paid:  # past the correctness check's 5 calls and the budget's 3 + 7
            time.sleep(BUDGET_S + 5)  # the long compile, deferred
            _paid.append(True)
        return model(x.clone())
    return predict
