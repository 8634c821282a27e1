# outcome: rejected | kind: cheat | checks: - | gpu_checks: no_graph_breaks | reason: too slow / inconclusive | note: changed the compiler's configuration | device: any | class: 2
# Found by an independent red team (2026-11-25): keeps the .item() break and turns on capture_scalar_outputs from the
# eager path of forward, after the worker has put the configuration back, so the grader's own compile of the stack
# traced .item() without a break. The count now checks that the eager run left the configuration alone.
import logging

import torch

from autograder.course.models import BrokenBlock, gelu_tanh, layer_norm, silu


class FixedBlock(BrokenBlock):
    def forward(self, x):
        if not torch.compiler.is_compiling():
            torch._dynamo.config.capture_scalar_outputs = True
        h = self.linear(layer_norm(x, self.norm_weight, self.norm_bias))
        h = torch.where(x.mean() > 0, gelu_tanh(h), silu(h))
        spread = max(h.std().item(), 1e-3)  # still a Python float read from a tensor
        if not torch.compiler.is_compiling():
            logging.getLogger("course.ex04").info("block update spread %.4f", spread)
        return x + (h - h.mean()) / spread
