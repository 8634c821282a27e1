# outcome: rejected | kind: cheat | checks: compile_budget | reason: beside the requests / over the compile budget | device: gpu | class: 6
# The GPU form of docs/redteam-open/ex03_side_process_compile.py (eleventh red team, 2026-11-27): at import it
# starts a fresh Python (exec, so it can use CUDA) that compiles a model of the exercise's architecture with
# mode="max-autotune" into the worker's Inductor cache (weights do not key the cache), then leaves a marker;
# predict serves the reference's way until the marker is there, then compiles the same way (a cache hit, seconds).
# Loading returns at once; the search runs in another process, beside the requests, where the budget's clock does
# not run. The operating system counts that process's CPU (the worker's control group) from the speed check's 4th
# call on: beyond 10 s it is charged to the compile budget. Written 2026-11-29 (fourth session); not yet graded.
import os
import subprocess
import sys

MARKER = os.path.abspath("side-autotune.ready")
SIDE = f"""
import torch
from autograder.exercises.ex03_compile_modes.workload import CONFIGS, build_model
width, _, batch = CONFIGS["full"]
model = build_model("full", 0, "cuda")
compiled = torch.compile(lambda x: model(x.clone()), mode="max-autotune")
with torch.no_grad():
    for _ in range(3):
        compiled(torch.randn(batch, width, device="cuda"))
torch.cuda.synchronize()
open({MARKER!r}, "w").close()
"""
if torch.cuda.is_available():  # noqa: F821 - the solution imported torch
    _side = subprocess.Popen([sys.executable, "-c", SIDE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

_reference_make_predict = make_predict  # noqa: F821 - the reference solution's, defined before this file runs


def make_predict(model):
    honest = _reference_make_predict(model)
    state = {"fast": None}

    def predict(x):
        if state["fast"] is None and os.path.exists(MARKER):  # the search is done: its kernels, from the cache
            compiled = torch.compile(lambda y: model(y.clone()), mode="max-autotune")  # noqa: F821
            state["fast"] = lambda y: compiled(y).clone()
        return (state["fast"] or honest)(x)

    return predict
