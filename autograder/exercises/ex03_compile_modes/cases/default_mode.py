# outcome: rejected | kind: wrong | checks: predict_speed | reason: too slow | device: gpu
# Known wrong: the default mode, the baseline itself (about 1.0x), on a copy of x (the model writes into its
# input): it fuses ops but still launches every kernel from Python, and at batch 16 the launches are the time.
import torch


def make_predict(model):
    compiled = torch.compile(model)
    return lambda x: compiled(x.clone())
