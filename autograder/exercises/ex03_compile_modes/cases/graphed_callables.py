# outcome: passed | kind: honest | checks: - | reason: legitimate | device: gpu
# Legitimate: torch.cuda.make_graphed_callables around a copy of the eager model per batch shape (it replaces
# the module's forward), outputs copied for the caller. The model writes into its input: the graph writes into
# the static input it was captured with, into which each call copies x first, so the caller's x is only read.
import copy


def make_predict(model):
    graphed = {}

    def predict(x):
        key = tuple(x.shape)
        if key not in graphed:
            with torch.enable_grad():  # noqa: F821  (it captures a backward too)
                graphed[key] = torch.cuda.make_graphed_callables(copy.deepcopy(model), (x.clone(),))  # noqa: F821
        return graphed[key](x).clone()

    return predict
