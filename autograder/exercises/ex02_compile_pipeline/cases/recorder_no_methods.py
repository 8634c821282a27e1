# outcome: rejected | kind: wrong | checks: recorder_ops | reason: your recorder counted | device: any
# Known wrong: counts call_function nodes only, so method calls such as x.neg() are missed.
from collections import Counter  # noqa: E402


class GraphRecorder:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(Counter(n.target for n in gm.graph.nodes if n.op == "call_function"))
        return gm.forward
