# outcome: rejected | kind: wrong | checks: speed | reason: too slow | note: never captured a CUDA graph | device: gpu
# Known wrong: no CUDA graph at all; the model runs eagerly, one kernel launch per op.
# The model's own host decision (one wait per call) stays: eager is what the grader times against.
# This design (an early-exit model, the step captured without its host decision): GPU verdict not measured yet.
def make_graphed_step(model, batch_size):
    def step(x):
        if x.shape[0] != batch_size:
            raise ValueError(f"this step takes a batch of {batch_size}, got {x.shape[0]}")
        return model(x)

    return step
