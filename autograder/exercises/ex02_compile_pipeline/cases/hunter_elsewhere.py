# outcome: passed | kind: cheat | checks: hunter_graph,hunter_node | reason: its hunter is written elsewhere | device: any
# After the fifteenth red team (2026-11-29, CPU; against the recorder this part used to be): NanHunter left as the
# notebook's stub (it raises), and the worker's copy of the grader's `hunt` rebound to a backend of its own that runs
# each graph node by node. Kept as a case that passes, on purpose: the checks grade what it found against the judge's
# truth for hidden functions drawn from the secret; it comes from running the function, node by node, in the
# submission's process, which is the exercise. Which class or name of the submission did it is the worker's word.
import torch

import autograder.exercises.ex02_compile_pipeline.workload as W


class NanHunter:  # the notebook's stub
    def __init__(self):
        raise NotImplementedError()

    def __call__(self, gm, example_inputs):
        raise NotImplementedError()


def _hunt(hunter_cls, kind, first, second, x, calm, armed, out_calm, out_armed):
    found, count = [], [0]

    def backend(gm, example_inputs):
        index, count[0] = count[0], count[0] + 1

        class Watch(torch.fx.Interpreter):
            def run_node(self, n):
                result = super().run_node(n)
                if (not found and n.op != "placeholder" and isinstance(result, torch.Tensor)
                        and not bool(torch.isfinite(result).all())):
                    found.append([index, n.name])
                return result
        return lambda *args: Watch(gm).run(*args)

    torch._dynamo.reset()
    try:
        compiled = torch.compile(W.hidden_function(kind, first, second), backend=backend)
        out_calm.copy_(compiled(x.clone(), calm.clone()))
        after_calm = {"first": found[0] if found else None}
        out_armed.copy_(compiled(x.clone(), armed.clone()))
    finally:
        torch._dynamo.reset()
    return {"calm": after_calm, "armed": {"first": found[0] if found else None}}


W.hunt = _hunt
