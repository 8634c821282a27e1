# outcome: rejected | kind: wrong | checks: predict_speed | reason: too slow | device: gpu
# Known wrong: no compile at all (on a copy of x: the model writes into its input); eager is slower than the
# default-mode compile (about 0.7x of it).
def make_predict(model):
    return lambda x: model(x.clone())
