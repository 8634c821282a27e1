# outcome: rejected | kind: wrong | checks: speed | reason: too slow | note: never captured a CUDA graph | device: gpu
# Known wrong: no CUDA graph at all; the model runs eagerly, one kernel launch per op.
def make_graphed_step(model, batch_size):
    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this step takes a batch of {batch_size}, got {x.shape[0]}")
        return model(x)

    return step
