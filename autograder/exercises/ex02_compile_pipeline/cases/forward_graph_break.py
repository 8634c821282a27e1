# outcome: diagnosed | kind: wrong | checks: train_step_correct | note: inside the model's forward | device: any
# Known wrong: a NaN check between the blocks is a data-dependent Python `if`: Dynamo breaks the forward
# into two graphs, and AOTAutograd builds two backward graphs (still 2.35x on an H200: only the structure
# check catches it).
class CheckedModel(torch.nn.Module):  # noqa: F821
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        half = len(self.model) // 2
        h = self.model[:half](x)
        if not torch.isfinite(h).all():  # noqa: F821
            raise FloatingPointError("non-finite activations")
        return self.model[half:](h)


def make_train_step(model, optimizer):
    compiled = torch.compile(CheckedModel(model))  # noqa: F821

    def step(x, y):
        return train_step(compiled, optimizer, x, y)  # noqa: F821
    return step
