# outcome: rejected | kind: cheat | checks: no_graph_breaks,speed | reason: during timing | device: any | class: 4
# After the sixteenth red team (2026-11-29, CPU): the stack is the reference fix, but its forward reads the
# grader's block runner in this process (its `calls` and `index`: grader code that runs in the worker) and on the
# last call of every timed block of two or more calls returns its input instead of working. Warm-up blocks of one
# call, and every untimed call, are right. The judge checks two calls of every timed block, drawn after the block,
# against its own original: rejected for a wrong output during timing (a block's last call is drawn 2 times in 3).
import sys

import torch

import autograder.course.models as _models
import autograder.exercises.ex04_graph_breaks.workload as _workload


def _last_call_of_a_block() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "run_block" and {"index", "calls"} <= set(frame.f_locals):
            calls, index = frame.f_locals["calls"], frame.f_locals["index"]
            return len(calls) > 1 and index == len(calls) - 1
        frame = frame.f_back
    return False


_make = _models.make_block_stack


def _watching(*args, **kwargs):
    stack = _make(*args, **kwargs)
    real = stack.forward

    @torch.compiler.disable
    def forward(x):
        return x.clone() if _last_call_of_a_block() else real(x)

    stack.forward = forward
    return stack


_workload.make_block_stack = _watching
