# outcome: rejected | kind: wrong | checks: predict_correct | gpu_checks: predict_speed | reason: modified its input | device: any
# Known wrong: lesson 3's recipe (cells 17-18) copied as it is, mode="reduce-overhead" and a .clone() of each
# output. This model's first module standardises its input in place (Standardize.forward: x.sub_().div_()), so
# the caller's x changes under every call: predict_correct rejects it on any device, and on a GPU the speed check
# too (the first input of each timed block comes back changed). Were the inputs not checked, it would still be
# slow there: a compiled graph that writes into a plain input is run without CUDA graphs (CUDAGraph Trees' check
# for mutated inputs, "skipping cudagraphs due to mutated inputs"), at about the default mode's speed.
import torch


def make_predict(model):
    compiled = torch.compile(model, mode="reduce-overhead")

    def predict(x):
        return compiled(x).clone()
    return predict
