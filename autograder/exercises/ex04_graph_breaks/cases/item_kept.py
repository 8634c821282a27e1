# outcome: rejected | kind: wrong | checks: - | gpu_checks: no_graph_breaks | reason: too slow / inconclusive | note: graph break | device: any
# Known wrong: the branch and the logging are fixed, but the spread is still a Python float from .item().
# fullgraph=True accepts it (captured as a symbol since torch 2.10); the default compile still breaks there.
import torch

from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm, silu


class FixedBlock(BrokenBlock):
    def forward(self, x):
        h = self.linear(layer_norm(x, self.norm_weight, self.norm_bias))
        h = torch.where(x.mean() > 0, gelu_tanh(h), silu(h))
        return x + (h - h.mean()) / max(h.std().item(), 1e-3)
