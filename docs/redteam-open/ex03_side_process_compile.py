# OPEN (not a case: docs/redteam-open). Would be: outcome: rejected | kind: cheat | checks: compile_budget | device: gpu | class: 6
# Red team (2026, CPU, torch 2.13): "a thread compiling ahead" (which submission_threads() reports) done in a
# process instead. At import it forks a child that does the long compile (here BUDGET + 5 s of busy CPU stands for
# an autotuning search; on a GPU host it would have cores of its own) and drops a marker in the scratch folder when
# done; predict serves eagerly on a copy of x until the marker is there, then takes the "compiled" path (here the
# same eager call). Loading returns at once, make_predict and every call stay cheap, no thread of the
# submission's is ever alive: nothing the budget charges (load, the predictors' requests, their excess over the
# steady latency) contains the child's work, which runs beside the worker whenever it is not stopped (it is
# stopped between compile_budget's own requests only). Session.processes() finds the child, but only to stop and
# kill it; nothing charges or reports its CPU time.
# Observed on this CPU (solution + this override, no cpu_gate, COURSE_COMPILE_BUDGET_S=15, 20 s of child CPU):
# compile_budget PASSED (1/1), "make_predict and the first three calls took 2.6 s (budget 15 s ...)", grading 16 s.
# Caveat: that grading ended before the child's 20 s were done (it is killed with the worker), so on a CPU this
# only shows that the child's CPU is charged nowhere; that the swap lands inside the speed check's blocks (and the
# point is unearned there) needs a GPU grading to confirm.
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)
MARKER = os.path.abspath("autotuned-kernels.ready")

if os.fork() == 0:  # the compile, in a process of its own
    try:
        while time.process_time() < BUDGET_S + 5:
            sum(i * i for i in range(10_000))
        open(MARKER, "w").close()
    finally:
        os._exit(0)


def make_predict(model):
    def predict(x):
        if os.path.exists(MARKER):  # the long compile is done: its kernels serve from now on
            return model(x.clone())
        return model(x.clone())
    return predict
