"""Exercise 03 after issue 39 item 2, the design's premise measured in one process before the grader runs it
20 times (`make gpu-check`): for each way of serving ``workload.build_model`` (whose standardisation writes into
its input), whether the caller's x changes, how many CUDA-graph skips Inductor counted, and the speedup over the
default-mode compile (the grader's baseline) with the course protocol (autograder.core.timing.compare).

Expected on a CUDA GPU: the lesson's recipe changes x and skips (about 1x); x copied before the compiled call
keeps x but still skips (about 1x); the reference (a copy inside the compiled function), the out-of-place rewrite
and a static buffer of its own skip nothing and clear 1.5x by a wide margin. On an H200 (2026-11-27, torch 2.11,
ex03-transfer-h200-2026-11-27.jsonl beside this file): the recipe changed x and skipped once (0.93x), x copied
outside skipped once (0.93x), the reference's way 3.42x, out of place 3.59x, a static buffer 3.70x, a hand capture of
the default mode's kernels 3.78x; max-autotune's kernels captured by hand 1.85x and mode="max-autotune" 1.75x (the
autotuned GEMMs about twice as slow in a graph at batch 16). (On a CPU,
smoke size, 2026-11-27, torch 2.13: x changed under the default mode and the recipe only; every reduce-overhead
way counted one skip, as every graph does there: no CUDA graphs on a CPU; the speedups say nothing.)

Usage: python benchmarks/design/ex03_transfer.py [--device cuda|cpu] [--size full|smoke]  (one JSON line each)
"""

from __future__ import annotations

import argparse
import json

import torch
from torch._dynamo.utils import counters

from autograder.core.timing import compare
from autograder.exercises.ex03_compile_modes.workload import CONFIGS, build_model


def default_mode(model):
    return torch.compile(model)


def lesson_recipe(model):
    compiled = torch.compile(model, mode="reduce-overhead")
    return lambda x: compiled(x).clone()


def clone_outside(model):
    compiled = torch.compile(model, mode="reduce-overhead")
    return lambda x: compiled(x.clone()).clone()


def clone_inside(model):  # the reference solution's way
    compiled = torch.compile(lambda x: model(x.clone()), mode="reduce-overhead")
    return lambda x: compiled(x).clone()


def out_of_place(model):
    standardize, rest = model[0], model[1:]
    compiled = torch.compile(lambda x: rest((x - standardize.mean) / standardize.std), mode="reduce-overhead")
    return lambda x: compiled(x).clone()


def static_buffer(model):
    compiled = torch.compile(model, mode="reduce-overhead")
    buffers = {}

    def predict(x):
        buffer = buffers.get(x.shape)
        if buffer is None:
            buffer = buffers[x.shape] = torch.empty_like(x)
            torch._dynamo.mark_static_address(buffer, guard=True)
        buffer.copy_(x)
        return compiled(buffer).clone()
    return predict


def hand_capture(mode):
    """The kernels of ``mode`` (no CUDA graphs of its own) captured by hand: a static input each call copies x
    into (the model standardises it in place, so x is only read), one private pool, a copy of the output."""
    def way(model):
        compiled = torch.compile(model, mode=mode)
        static_in = None

        def predict(x):
            nonlocal static_in
            if static_in is None:  # warm up on a side stream, then record
                static_in = torch.empty_like(x)
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    for _ in range(3):
                        static_in.copy_(x)
                        compiled(static_in)
                torch.cuda.current_stream().wait_stream(side)
                predict.graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(predict.graph, pool=torch.cuda.graph_pool_handle()):
                    predict.out = compiled(static_in)
            static_in.copy_(x)
            predict.graph.replay()
            return predict.out.clone()
        return predict
    way.__name__ = f"hand_capture[{mode}]"
    return way


def clone_inside_max_autotune(model):  # the reference's way, with max-autotune's kernels
    compiled = torch.compile(lambda x: model(x.clone()), mode="max-autotune")
    return lambda x: compiled(x).clone()


WAYS = [default_mode, lesson_recipe, clone_outside, clone_inside, out_of_place, static_buffer]
# Issue 38's honest max-autotune-no-cudagraphs + hand capture reached only 1.43x on an H200: whether that is the
# autotuned kernels (inside a graph) or the hand capture is told by these three.
CUDA_ONLY_WAYS = [hand_capture("default"), hand_capture("max-autotune-no-cudagraphs"), clone_inside_max_autotune]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--size", default="full", choices=sorted(CONFIGS))
    args = parser.parse_args()
    width, _, batch = CONFIGS[args.size]
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name() if args.device == "cuda"
                      else "cpu", "size": args.size}))
    gen = torch.Generator(device=args.device).manual_seed(0)
    with torch.no_grad():
        for way in WAYS + (CUDA_ONLY_WAYS if args.device == "cuda" else []):
            # fresh inputs for each way: standardised again and again, an input converges to a fixed point
            inputs = [(torch.randn(batch, width, device=args.device, generator=gen),) for _ in range(8)]
            torch._dynamo.reset()
            counters.clear()
            reference, base = build_model(args.size, 1, args.device), default_mode(build_model(args.size, 1,
                                                                                                 args.device))
            serve = way(build_model(args.size, 1, args.device))
            x = inputs[0][0].clone()
            out = serve(x)
            changed = not torch.equal(x, inputs[0][0])
            err = (out - reference(inputs[0][0].clone())).abs().max().item()
            # the ways that write into x standardise the shared inputs again and again: bounded (std > 1), and a
            # call's time does not depend on its values
            c = compare(base, serve, inputs, device=args.device, gate=1.5)
            print(json.dumps({"way": way.__name__, "changes_x": changed, "max_abs_err": err,
                              "cudagraph_skips": counters["inductor"]["cudagraph_skips"],
                              "speedup_over_default": round(c.speedup, 3),
                              "rounds": [round(s, 2) for s in c.round_speedups],
                              "default_us": round(c.baseline.median_s * 1e6, 1),
                              "way_us": round(c.candidate.median_s * 1e6, 1)}), flush=True)


if __name__ == "__main__":
    main()
