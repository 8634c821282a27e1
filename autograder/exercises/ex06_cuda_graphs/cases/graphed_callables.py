# outcome: passed | kind: honest | checks: - | reason: legitimate | device: gpu
# Legitimate: torch.cuda.make_graphed_callables (it warms up and captures by itself), outputs copied. Given the model
# as it is, it would fail as the lesson's recipe does (it captures the forward, host decision and all); given a
# module whose forward is branchless (both ways computed, the 0-dim decision picks one on the GPU), it captures.
# make_graphed_callables also captures a backward: it runs with autograd on, as in the lesson's cell 11.
# This design (an early-exit model, the step captured without its host decision): GPU verdict not measured yet.
import torch


class Branchless(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        h = self.model.first(x)
        return torch.where(self.model.typical(h), self.model.exit(h), self.model.deep(h))


def make_graphed_step(model, batch_size):
    device = next(model.parameters()).device
    width = model.exit.normalized_shape[0]
    sample = torch.zeros(batch_size, width, device=device)
    with torch.enable_grad():
        graphed = torch.cuda.make_graphed_callables(Branchless(model), (sample,))

    def step(x):
        if x.shape != sample.shape:
            raise ValueError(f"this graph takes a batch of {batch_size}, got {tuple(x.shape)}")
        return graphed(x).clone()

    return step
