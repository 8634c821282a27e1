# outcome: rejected | kind: wrong | checks: predict_correct | reason: differs | device: any
# Known wrong: the model served in bfloat16 (inputs cast down, outputs cast back to float32). Fast, but off by
# ~1e-2: lower precision than the exercise allows.
import torch


def make_predict(model):
    compiled = torch.compile(model.to(torch.bfloat16), mode="reduce-overhead")

    def predict(x):
        return compiled(x.to(torch.bfloat16)).float()
    return predict
