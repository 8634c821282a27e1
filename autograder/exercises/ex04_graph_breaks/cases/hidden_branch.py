# outcome: rejected | kind: wrong | checks: outputs_match | reason: compiled | device: any
# Known wrong: hides the branch behind torch.compiler.is_compiling(). Eager mode is right; the compiled
# path always takes GELU, so compiled outputs differ for inputs with a negative mean.
import torch

from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm, silu


class FixedBlock(BrokenBlock):
    def forward(self, x):
        h = self.linear(layer_norm(x, self.norm_weight, self.norm_bias))
        if torch.compiler.is_compiling():
            h = gelu_tanh(h)
        else:
            h = gelu_tanh(h) if x.mean() > 0 else silu(h)
        return x + (h - h.mean()) / h.std().clamp_min(1e-3)
