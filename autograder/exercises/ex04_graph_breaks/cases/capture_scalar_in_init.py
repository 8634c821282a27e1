# outcome: rejected | kind: cheat | checks: - | gpu_checks: no_graph_breaks | reason: too slow / inconclusive | note: graph break | device: any | class: 2
# The same, with the configuration changed in __init__ (which runs when the grader builds the stack, after the
# worker restored the configuration once): the worker restores it again before the grader's own compile.
import torch

from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm, silu


class FixedBlock(BrokenBlock):
    def __init__(self, d):
        super().__init__(d)
        torch._dynamo.config.capture_scalar_outputs = True

    def forward(self, x):
        h = self.linear(layer_norm(x, self.norm_weight, self.norm_bias))
        h = torch.where(x.mean() > 0, gelu_tanh(h), silu(h))
        spread = max(h.std().item(), 1e-3)
        return x + (h - h.mean()) / spread
