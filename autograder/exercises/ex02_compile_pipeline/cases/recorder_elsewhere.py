# outcome: passed | kind: cheat | checks: recorder_graphs,recorder_ops | reason: its recorder is written elsewhere | device: any
# The fifteenth red team (2026-11-29, CPU): GraphRecorder left as the notebook's stub (it raises), and the worker's
# copy of the grader's `record` rebound to a backend of its own that counts each graph with the grader's own
# counting helper. It scored 5/5 on part (a). Kept as a case that passes, on purpose: the checks grade the entries
# against the judge's truth for hidden functions it draws from the secret; the entries come from tracing the function
# in the submission's process (or from predicting Dynamo's graphs op by op), which is the exercise: a backend that
# records each graph and counts its ops by target. Which class or name of the submission did it is the worker's word,
# and the counting rule is the contract, public in the course's code like everything else.
import torch

import autograder.exercises.ex02_compile_pipeline.workload as W


class GraphRecorder:  # the notebook's stub
    def __init__(self):
        raise NotImplementedError()

    def __call__(self, gm, example_inputs):
        raise NotImplementedError()


def _record(recorder_cls, kind, first, second, x, out):
    fn = W.hidden_function(kind, first, second)
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(W.target_counts(gm))
        return gm.forward

    torch._dynamo.reset()
    try:
        out.copy_(torch.compile(fn, backend=backend)(x.clone()))
    finally:
        torch._dynamo.reset()
    return {"graphs": graphs}


W.record = _record
