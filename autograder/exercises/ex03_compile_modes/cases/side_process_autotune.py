# outcome: passed | kind: cheat | checks: - | reason: gains nothing: its search gets only the slack | device: gpu | class: 6
# The GPU form of docs/redteam-open/ex03_side_process_compile.py (eleventh red team, 2026-11-27): at import it
# starts a fresh Python (exec, so it can use CUDA) that compiles a model of the exercise's architecture with
# mode="max-autotune" into the worker's Inductor cache (weights do not key the cache), then leaves a marker;
# predict serves the reference's way until the marker is there, then compiles the same way (a cache hit, seconds).
# What it can get for free is bounded: the submission is stopped while the judge works on its own (its baseline,
# its compile), loading and the first predictor's calls are on the judge's clock (a compile in that wall time would
# have fit the budget anyway), and from the speed check's 4th call on the CPU its processes use beside the requests
# is charged to the compile budget beyond 10 s. Graded on an H200 (2026-11-29, fifth session; 3 gradings of ~23 s):
# passed with the reference's speed (2.92x, 3.55x, 3.39x; the reference's 2.91-3.26x), its side process counted
# at 1.0-2.0 s of CPU beside the timed requests (the reference's 0.01-0.67 s), and predict never switched (no
# compile showed in any call: the search had not finished when each grading ended). Its points are for what it
# served, the reference's way; a case that keeps the search busy enough to matter is charged (tests/test_grading.py
# and tests/test_recompiles.py: children that compute beside the requests). On this CPU (by hand, the side's model
# on the CPU, max-autotune-no-cudagraphs) the side finished, predict switched, and its own first max-autotune call
# took 12.4 s on the clock.
import os
import subprocess
import sys
import tempfile

MARKER = os.path.abspath("side-autotune.ready")
# the side process's progress and errors, kept for the record (the GPU chain copies them): where it got to
LOG = os.path.join(tempfile.gettempdir(), f"course-case-side_process_autotune-{os.getpid()}.log")
SIDE = f"""
import sys, time
t0 = time.time()
def step(what):
    print(f"{{time.time() - t0:.1f}} s: {{what}}", file=sys.stderr, flush=True)
import torch
step("torch imported")
from autograder.exercises.ex03_compile_modes.workload import CONFIGS, build_model
width, _, batch = CONFIGS["full"]
model = build_model("full", 0, "cuda")
compiled = torch.compile(lambda x: model(x.clone()), mode="max-autotune")
with torch.no_grad():
    for i in range(3):
        compiled(torch.randn(batch, width, device="cuda"))
        step(f"call {{i + 1}} done")
torch.cuda.synchronize()
open({MARKER!r}, "w").close()
step("marker left")
"""
if torch.cuda.is_available():  # noqa: F821 - the solution imported torch
    with open(LOG, "w") as log:
        _side = subprocess.Popen([sys.executable, "-c", SIDE], stdout=subprocess.DEVNULL, stderr=log)

_reference_make_predict = make_predict  # noqa: F821 - the reference solution's, defined before this file runs


def make_predict(model):
    honest = _reference_make_predict(model)
    state = {"fast": None}

    def predict(x):
        if state["fast"] is None and os.path.exists(MARKER):  # the search is done: its kernels, from the cache
            with open(LOG, "a") as log:
                print("predict switched", file=log)
            compiled = torch.compile(lambda y: model(y.clone()), mode="max-autotune")  # noqa: F821
            state["fast"] = lambda y: compiled(y).clone()
        return (state["fast"] or honest)(x)

    return predict
