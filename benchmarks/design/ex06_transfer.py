"""Exercise 06 after issue 39 item 2, the design's premise measured in one process before the grader runs it
20 times (`make gpu-check`): for each way of serving ``workload.build_model`` (an early-exit network that decides on
the host, batch by batch, whether to run its deep stage), whether make_graphed_step captures at all (and the first
line of its error), how many of six calls over both kinds of batch (a pattern drawn as the grader draws one,
``workload.atypical_pattern``) match the eager model, and the speedup over the eager model (the grader's baseline)
with the course protocol (autograder.core.timing.compare) on that mix of batches, on typical batches only and on
atypical batches only. The code measured is the graded code itself: the reference solution's cell
(solutions/06_cuda_graphs) and the case files (autograder/exercises/ex06_cuda_graphs/cases/).

Expected on a CUDA GPU (not measured yet): the lesson's recipe raises inside the capture ("operation not permitted
when stream is capturing", at EarlyExit.forward's `if`); one_way_captured right on atypical batches only;
previous_decision wrong at every switch; the reference, two graphs with a host read and make_graphed_callables over a
branchless module right everywhere and, by the design's estimate (lesson 6: a hand capture of make_mlp(256, 8) at
batch 8 ran 6.4x-12x over eager), 3x-6x over eager on the mix, least on typical-only batches (eager runs a third of
the model there; the reference all of it). The verdict the design needs: the reference >= 2.5x on the mix.
On a CPU (no CUDA graphs): every way but eager's is skipped, with the reason; the reference's branchless forward is
checked against the model on both kinds of batch.

Usage: python benchmarks/design/ex06_transfer.py [--device cuda|cpu] [--size full|smoke]  (one JSON line each)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch

from autograder.core.submission import load_namespace, notebook_code, static_closure
from autograder.core.timing import compare
from autograder.exercises.ex06_cuda_graphs.workload import CONFIGS, atypical_pattern, build_model, make_batch

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "autograder" / "exercises" / "ex06_cuda_graphs" / "cases"
SOLUTION = REPO / "solutions" / "06_cuda_graphs" / "06_cuda_graphs.ipynb"
# (name, case file or None for the reference solution); the lesson's recipe last: a refused capture cannot spoil the
# measurements of the others, whatever state it leaves the process in
WAYS = [("reference", None), ("two_graphs_host_decision", "two_graphs_host_decision.py"),
        ("graphed_callables", "graphed_callables.py"), ("one_way_captured", "one_way_captured.py"),
        ("previous_decision", "previous_decision.py"), ("lesson_recipe", "lesson_recipe.py")]


def load_way(case: str | None, name: str = "make_graphed_step"):
    """``name`` as the grader ships it to a fresh process: its own cut (static_closure) of the solution's cells and
    the case's code, with what it names, and none of the notebook's other cells (demo, result card)."""
    sources = notebook_code(SOLUTION) + ([(CASES / case).read_text()] if case else [])
    return load_namespace(static_closure(sources, name))[name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--size", default="full", choices=sorted(CONFIGS))
    args = parser.parse_args()
    cfg, device = CONFIGS[args.size], args.device
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name() if device == "cuda"
                      else "cpu", "size": args.size}), flush=True)
    gen = torch.Generator(device=device).manual_seed(0)
    ways = atypical_pattern(0)  # both kinds, both switches; a grading draws its own from the secret
    mixes = {"mix": list(ways), "typical": [False] * 6, "atypical": [True] * 6}
    inputs = {name: [(make_batch(gen, cfg.batch, cfg.width, a, device),) for a in kinds] * 2
              for name, kinds in mixes.items()}
    sequence = [make_batch(gen, cfg.batch, cfg.width, atypical, device) for atypical in ways]
    with torch.no_grad():
        if device != "cuda":  # no CUDA graphs: check the reference's captured function only
            branchless = load_way(None, "branchless_forward")
            model = build_model(args.size, 1, device)
            right = sum(torch.equal(branchless(model, x), model(x)) for x in sequence)
            print(json.dumps({"way": "reference (branchless_forward, not captured)", "right_of_6": right,
                              "skipped": "no CUDA graphs on a CPU: every way's capture needs a CUDA GPU"}))
            return
        for name, case in WAYS:
            model, eager = build_model(args.size, 1, device), build_model(args.size, 1, device)
            row: dict = {"way": name}
            try:
                step = load_way(case)(model, cfg.batch)
            except Exception as err:  # the design's premise for the lesson's recipe: the capture is refused
                row.update(captured=False, error=f"{type(err).__name__}: {str(err).strip().splitlines()[0][:160]}",
                           context=f"{type(err.__context__).__name__}: "
                                   f"{str(err.__context__).strip().splitlines()[0][:160]}" if err.__context__ else "")
                print(json.dumps(row), flush=True)
                torch.cuda.synchronize()
                continue
            row["captured"] = True
            try:
                errors = [float((step(x) - eager(x)).abs().max()) for x in sequence]
                row.update(right_of_6=sum(e <= 1e-5 for e in errors), max_abs_err=max(errors))
                for mix, xs in inputs.items():
                    c = compare(eager, step, xs, device=device, gate=1.5)
                    row[f"speedup_{mix}"] = round(c.speedup, 3)
                    row[f"rounds_{mix}"] = [round(s, 2) for s in c.round_speedups]
                    row[f"eager_us_{mix}"] = round(c.baseline.median_s * 1e6, 1)
                    row[f"way_us_{mix}"] = round(c.candidate.median_s * 1e6, 1)
            except Exception as err:  # a way that captures but fails when called: say so, measure the others
                row["call_error"] = f"{type(err).__name__}: {str(err).strip().splitlines()[0][:160]}"
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
