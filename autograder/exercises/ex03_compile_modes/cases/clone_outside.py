# outcome: rejected | kind: wrong | checks: - | gpu_checks: predict_speed | reason: too slow | device: gpu
# Known wrong: the lesson's recipe with the input copied before the compiled call, compiled(x.clone()).clone().
# The caller's x is safe now, so it is correct; but the compiled graph still writes into its input (the copy is
# that input), and CUDAGraph Trees run a graph that mutates a plain input without CUDA graphs: one warning
# "skipping cudagraphs due to mutated inputs (1 instances)" and one count in counters["inductor"]
# ["cudagraph_skips"] (torch 2.11 and 2.13: check_for_mutation, called from
# CUDAGraphTreeManager._update_non_cudagraph_managed_mutation). Every call then launches every kernel, as the
# default mode does, plus a copy: about the default mode's speed. (A GPU case: on a CPU there are no CUDA graphs
# and it passes.) On an H200 (2026-11-27, torch 2.11): rejected 2/2 at 0.86x-0.88x, 1 cudagraph skip; in one process
# 0.93x over the default mode (benchmarks/design/ex03-transfer-h200-2026-11-27.jsonl).
import torch


def make_predict(model):
    compiled = torch.compile(model, mode="reduce-overhead")

    def predict(x):
        return compiled(x.clone()).clone()
    return predict
