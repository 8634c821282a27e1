# outcome: rejected | kind: cheat | checks: compile_budget | reason: loading your code | device: any | class: 6
# Found by an independent red team (2026-11-25): the expensive compile runs while the submission is loaded (a model
# of the same architecture compiled and run at import fills the caches make_predict's compile then hits); the
# 65 s sleep stands for the long autotuning search. Loading is charged to the compile budget.
import time

time.sleep(65)  # the long compile, at import: in no call's time
