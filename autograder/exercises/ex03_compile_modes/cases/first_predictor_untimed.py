# outcome: rejected | kind: cheat | checks: compile_budget | reason: over the compile budget | device: any | class: 6 | policy: learner
# Red team (2026, CPU, torch 2.13): the long compile (a sleep of the budget + 5 s stands for it) is paid once per
# process, in the first make_predict the worker sees, then served eagerly on a copy of x (cheap to grade on a CPU:
# only the budget is at stake). On a CPU graded as a learner grades (`python -m autograder grade`, no cpu_gate), the first
# make_predict is the speed check's: check_speed calls _predictor (reset, build_model, make_predict) before
# speed_check's ctx.gate raises NeedsGPU, so that request is charged nowhere (speed_excess_s is never set), while
# check_compile_budget assumes "no speed check ran: the correctness check's predictor was the grading's first".
# Observed with the CLI on this CPU: compile_budget PASSED (1/1), "loading your code, make_predict and the first
# three calls took 11.8 s (budget 60 s ...)", with the default 60 s budget and a 65 s first make_predict (4/10,
# 128.9 s); and passed likewise under COURSE_COMPILE_BUDGET_S=15 (a 20 s make_predict). The test suite's
# Policy(cpu_gate=0.05) runs the timed speed check on a CPU, which charges that predictor, so it does not see this.
# Fixed: check_speed charges its predictor's requests whatever happens after make_predict (on a CPU without a gate
# the check stops there), and this case is graded on the learner's path (policy: learner).
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)
_paid = []  # paid once per process, as a warm compile cache would make it


def make_predict(model):
    if not _paid:
        time.sleep(BUDGET_S + 5)  # the long compile, in the grading's first make_predict
        _paid.append(True)
    return lambda x: model(x.clone())  # served eagerly here: what it serves is not the point, the budget is
