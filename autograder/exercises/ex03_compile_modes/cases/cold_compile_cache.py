# outcome: rejected | kind: cheat | checks: compile_budget | reason: over the compile budget | device: gpu | class: 6
# Found by an independent red team (2026-11-25): make_predict costs more than the budget with cold caches and
# nothing once a marker sits in Inductor's cache folder (as autotuning results do), so only the grading's first predictor pays,
# and it used to be an untimed one. The speed check now makes the first predictor, and compile_budget charges it.
# (A GPU case: unsandboxed, as in the CPU suite, the worker cache and its marker outlive a grading; graded on a
# CPU by hand when it was fixed. Graded twice in a row on an unsandboxed H200 host, 2026-11-27, it passed the second
# time: the first grading's marker sat in the shared worker cache. make gpu-check now grades each case on a copy of
# that cache, as the sandbox does.) Served as the reference serves: x copied inside the compiled function.
import os
import time

# the grading's compile budget (60 s; the CPU suite shortens it for this case: COURSE_COMPILE_BUDGET_S)
BUDGET_S = float(os.environ.get("COURSE_COMPILE_BUDGET_S") or 60)


def make_predict(model):
    compiled = torch.compile(lambda x: model(x.clone()), mode="reduce-overhead")  # noqa: F821
    marker = os.path.join(os.environ.get("TORCHINDUCTOR_CACHE_DIR") or "/tmp/torchinductor", "autotune-results-mlp")
    if not os.path.exists(marker):
        time.sleep(BUDGET_S + 5)  # a cold autotuning search
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "w") as f:
            f.write("best configs")

    def predict(x):
        return compiled(x).clone()

    return predict
