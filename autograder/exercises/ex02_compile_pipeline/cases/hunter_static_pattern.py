# outcome: rejected | kind: cheat | checks: hunter_graph,hunter_node | reason: your NanHunter | device: any | class: 4
# The seventeenth red team (2026-11-29, CPU; 5/5 against the first form of this part): never looks at a value, and
# names the culprit from the graph's structure (a log of a neg node, a division by sub(a, a): the forms the generator's
# culprits then had, failing for every input). Every risky op is now the same subgraph, log(x - t[i]), with its
# threshold an input whose values decide, call by call: this finds nothing, and is rejected.
import operator
import torch


def _culprit(gm):
    for n in gm.graph.nodes:
        if n.op not in ("call_function", "call_method"):
            continue
        if n.target in (torch.log, "log") and n.args and isinstance(n.args[0], torch.fx.Node) \
                and n.args[0].target in (operator.neg, torch.neg, "neg"):
            return n.name
        if n.target in (operator.truediv, torch.div, "div") and len(n.args) > 1 \
                and isinstance(n.args[1], torch.fx.Node) and n.args[1].target in (operator.sub, torch.sub, "sub") \
                and n.args[1].args[0] is n.args[1].args[1]:
            return n.name
    return None


class NanHunter:
    def __init__(self):
        self.first = None
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        index, self.graphs = self.graphs, self.graphs + 1
        name = _culprit(gm)
        run = gm.forward

        def compiled(*args):
            out = run(*args)
            if self.first is None and name is not None:
                self.first = (index, name)
            return out
        return compiled
