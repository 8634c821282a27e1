# Cheat (class 4): serves the first three calls (the only ones compile_budget times) eagerly, and does its expensive compile on the 4th call; the 65 s sleep stands for a long compile/autotune search (max-autotune-style). SHOULD FAIL compile_budget (compile cost > 60 s budget); predict_correct and outputs_stay_valid should still pass.
import time

import torch


def make_predict(model):
    state = {"calls": 0, "compiled": None}

    def predict(x):
        state["calls"] += 1
        if state["calls"] <= 3:
            return model(x)
        if state["compiled"] is None:
            time.sleep(65)  # the long compile, out of the budget's sight
            state["compiled"] = torch.compile(model, mode="max-autotune-no-cudagraphs")
        return state["compiled"](x).clone()

    return predict
