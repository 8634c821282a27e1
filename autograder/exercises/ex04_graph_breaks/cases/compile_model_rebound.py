# outcome: rejected | kind: cheat | checks: - | gpu_checks: no_graph_breaks,speed | reason: too slow | device: gpu | class: 1
# The fifteenth red team (2026-11-29, CPU): hidden_branch's wrong compiled path (always GELU while compiling), plus
# the worker's copy of the grader's compile_model rebound to hand the eager stack back as "torch.compile(model)".
# outputs_match then compared eager with eager and scored 3 (10/10 at the suite's CPU gate). outputs_match now grades
# eager mode only (what the stack computes when it is compiled is graded in the timed checks), so the eager stack
# earns those 3 points by its own right; the timed checks time the eager stack as "compiled" and fail their gates on
# a GPU (1.1x over the original compiled, 1.5x over eager). On a CPU nothing tells it (the suite's CPU gate is 0.05x).
import torch

import autograder.exercises.ex04_graph_breaks.workload as W
from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm, silu


class FixedBlock(BrokenBlock):
    def forward(self, x):
        h = self.linear(layer_norm(x, self.norm_weight, self.norm_bias))
        if torch.compiler.is_compiling():
            h = gelu_tanh(h)
        else:
            h = gelu_tanh(h) if x.mean() > 0 else silu(h)
        return x + (h - h.mean()) / h.std().clamp_min(1e-3)


W.compile_model = lambda model: model  # "compiled" = eager, in every check
