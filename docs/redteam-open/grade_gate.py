"""Like `python -m autograder grade`, but with the test suite's CPU policy (Policy(cpu_gate=float(__import__("os").environ.get("GATE", "0.05")))): the timed
checks run on a CPU and verify every timed call's outputs/effects (tests/test_cases.py uses the same policy).
usage: cd /tmp/redteam/snap && python /tmp/redteam/grade_gate.py EXERCISE FILE JSON [check,check]"""
import sys

sys.path.insert(0, ".")
from autograder.core.grading import Policy, default_device, grade_file, warm_judge
from autograder.exercises import EXERCISES

ex, path, out = sys.argv[1:4]
only = sys.argv[4].split(",") if len(sys.argv) > 4 else None
warm_judge(default_device())
report = grade_file(EXERCISES[ex], path, only=only, policy=Policy(cpu_gate=float(__import__("os").environ.get("GATE", "0.05")), allow_skip=True, timeout=600))
for line in report.lines():
    print(line)
open(out, "w").write(report.to_json())
