# outcome: rejected | kind: wrong | checks: predict_speed | reason: too slow | device: gpu
# Known wrong: the default mode, the baseline itself (about 1.0x): it fuses ops but still launches every
# kernel from Python, and at batch 16 the launches are the time.
import torch


def make_predict(model):
    return torch.compile(model)
