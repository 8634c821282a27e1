# outcome: rejected | kind: wrong | checks: predict_speed | reason: overwritten / differs / during timing | device: gpu
# Known wrong: reduce-overhead (x copied inside the compiled function, as the reference does) returning the CUDA
# graph's output itself; the next replay writes over it, so an output the caller kept changes (or cannot be read)
# after the next call. Fast, correct call by call.
import torch


def make_predict(model):
    return torch.compile(lambda x: model(x.clone()), mode="reduce-overhead")
