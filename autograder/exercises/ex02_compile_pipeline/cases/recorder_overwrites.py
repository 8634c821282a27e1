# outcome: rejected | kind: wrong | checks: recorder_graphs,recorder_ops | reason: graph | device: any
# Known wrong: keeps only the latest graph (overwrites instead of appending), so a graph break loses one.
from collections import Counter  # noqa: E402


class GraphRecorder:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs = [Counter(n.target for n in gm.graph.nodes
                               if n.op in ("call_function", "call_method", "call_module"))]
        return gm.forward
