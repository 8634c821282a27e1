# outcome: diagnosed | kind: cheat | checks: train_step_correct | note: inside the model's forward / nothing was compiled | device: any
# Hides the awkward half of the model from the compiler with torch.compiler.disable: the forward breaks there.
def make_train_step(model, optimizer):
    half = len(model) // 2
    first, second = model[:half], torch.compiler.disable(model[half:])  # noqa: F821

    class Split(torch.nn.Module):  # noqa: F821
        def __init__(self):
            super().__init__()
            self.first = first

        def forward(self, x):
            return second(self.first(x))

    compiled = torch.compile(Split())  # noqa: F821

    def step(x, y):
        return train_step(compiled, optimizer, x, y)  # noqa: F821
    return step
