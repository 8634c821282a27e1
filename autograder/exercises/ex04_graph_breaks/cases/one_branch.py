# outcome: rejected | kind: wrong | checks: outputs_match | reason: differs | device: any
# Known wrong: removes the branch instead of expressing it with tensors (always GELU). One graph, fast,
# and wrong for every input with a negative mean.
from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm


class FixedBlock(BrokenBlock):
    def forward(self, x):
        h = gelu_tanh(self.linear(layer_norm(x, self.norm_weight, self.norm_bias)))
        return x + (h - h.mean()) / h.std().clamp_min(1e-3)
