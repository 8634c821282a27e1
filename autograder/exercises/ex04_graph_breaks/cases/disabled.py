# outcome: rejected | kind: wrong | checks: - | gpu_checks: no_graph_breaks,speed | reason: too slow / inconclusive | note: graph break | device: any
# Known wrong: torch._dynamo.disable on the awkward part. The graph breaks are still there, just declared:
# fullgraph=True refuses the disabled call, and the disabled part runs eagerly (no speedup).
import torch

from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm, silu


class FixedBlock(BrokenBlock):
    @torch._dynamo.disable
    def _update(self, x, h):
        h = gelu_tanh(h) if x.mean() > 0 else silu(h)
        return (h - h.mean()) / max(h.std().item(), 1e-3)

    def forward(self, x):
        return x + self._update(x, self.linear(layer_norm(x, self.norm_weight, self.norm_bias)))
