# outcome: rejected | kind: wrong | checks: predict_speed | reason: too slow | device: gpu
# Known wrong: autotuned GEMMs without CUDA graphs (about 1.1x of the default mode, after ~30 s of
# autotuning): faster kernels do not help when the time goes to launching them. (x is copied inside the compiled
# function, as the reference does: the model writes into its input.)
import torch


def make_predict(model):
    compiled = torch.compile(lambda x: model(x.clone()), mode="max-autotune-no-cudagraphs")

    def predict(x):
        return compiled(x)
    return predict
