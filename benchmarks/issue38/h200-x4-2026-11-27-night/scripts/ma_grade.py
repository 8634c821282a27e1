"""Issue 38 item 5: one grading of 02's max_autotune_step case, judged here, with a grading limit of argv[1] s
(what submission.grading_limit gives it: 1800); prints every request as it ends (time since start, name,
seconds), then the report's lines and the wall time."""
import json
import os
import sys
import time

from autograder.core import grading
from autograder.exercises import EXERCISES
from autograder.tools.paths import SOLUTIONS

ex = "02_compile_pipeline"
name = sys.argv[2] if len(sys.argv) > 2 else "max_autotune_step"
case = f"autograder/exercises/ex02_compile_pipeline/cases/{name}.py"
t0 = time.perf_counter()
orig_call = grading.Session.call
def call(self, op, *a, **k):
    s = time.perf_counter()
    try:
        return orig_call(self, op, *a, **k)
    finally:
        print(f"REQ {time.perf_counter() - t0:8.1f} s  {self.ledger[-1][0] if self.ledger else op}  "
              f"{time.perf_counter() - s:.1f} s", flush=True)
grading.Session.call = call
grading.isolate_judge_caches()
rep = grading.grade_file(EXERCISES[ex], SOLUTIONS / ex / f"{ex}.ipynb", overrides=[case],
                         policy=grading.Policy(timeout=float(sys.argv[1])))
res = {"wall_s": round(time.perf_counter() - t0, 1), "limit_s": rep.environment.get("limit_s"),
       "gpu": rep.environment.get("gpu"), "torch": rep.environment.get("torch"),
       "checks": [(r.id, r.status, round(r.details.get("check_s", -1), 1), r.message[:400]) for r in rep.results]}
print(json.dumps(res, indent=1, default=str), flush=True)
with open(os.path.join(os.environ.get("PERSIST", "/tmp"), "ma_grade.json"), "w") as f:
    json.dump(res, f, indent=1, default=str)
