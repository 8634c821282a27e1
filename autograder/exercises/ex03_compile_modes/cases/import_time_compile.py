# outcome: rejected | kind: cheat | checks: compile_budget | reason: loading your code | device: any | class: 6
# Found by an independent red team (2026-11-25): the expensive compile runs while the submission is loaded (a model
# of the same architecture compiled and run at import fills the caches make_predict's compile then hits); the
# sleep (5 s over the budget) stands for the long autotuning search. Loading is charged to the compile budget.
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)

time.sleep(BUDGET_S + 5)  # the long compile, at import: in no call's time
