"""Like `python -m autograder grade`, with the test suite's CPU policy (a CPU speed gate, GATE, 0.05 unless set): the
timed checks run on a CPU and verify every timed call's outputs and effects. FILE is graded as a whole submission;
with --on-reference it goes on top of the exercise's reference solution, as tests/test_cases.py grades a case.
usage: cd <a clone of the repo> && PYTHONPATH=. python docs/redteam-open/grade_gate.py EXERCISE FILE JSON
       [check,check] [--on-reference]"""
import os
import sys

sys.path.insert(0, ".")
from autograder.core.grading import Policy, default_device, grade_file, warm_judge  # noqa: E402
from autograder.exercises import EXERCISES  # noqa: E402
from autograder.tools.paths import solution  # noqa: E402

args = [a for a in sys.argv[1:] if a != "--on-reference"]
ex, path, out = args[:3]
only = args[3].split(",") if len(args) > 3 else None
on_reference = "--on-reference" in sys.argv
warm_judge(default_device())
report = grade_file(EXERCISES[ex], solution(ex) if on_reference else path, overrides=[path] if on_reference else (),
                    only=only, policy=Policy(cpu_gate=float(os.environ.get("GATE", "0.05")), allow_skip=True,
                                             timeout=600))
for line in report.lines():
    print(line)
open(out, "w").write(report.to_json())
