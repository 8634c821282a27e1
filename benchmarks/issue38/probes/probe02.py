"""Issue 38 item 5 probe (run on the GPU host, PYTHONPATH=the course): where 02's grading time goes, and what a
max-autotune training step's first compile costs (in-process, outside the grader).

    python probe02.py grade NAME CASE|- HIDDEN   # a grading of 02 (reference, or plus CASE): time per check, request
    python probe02.py compile NAME MODE OPT      # the step compiled in MODE (OPT=1: optimizer.step compiled too)
"""

import json
import os
import sys
import time

OUT = os.environ.get("OUT", "/tmp")


def dump(name, obj):
    with open(f"{OUT}/{name}.json", "w") as f:
        json.dump(obj, f, indent=1, default=str)
    print(name, json.dumps(obj, default=str)[:3000], flush=True)


def grade(name, case, hidden):
    from autograder.core import grading
    from autograder.tools.gpu_check import EXERCISES, solution

    ledgers = []
    close = grading.Session.close

    def close_and_keep_ledger(self):
        totals = {}
        for request, seconds in self.ledger:
            row = totals.setdefault(request, [0, 0.0])
            row[0] += 1
            row[1] += seconds
        ledgers.append(sorted(((n, c, round(s, 2)) for n, (c, s) in totals.items()), key=lambda r: -r[2])[:12])
        return close(self)

    grading.Session.close = close_and_keep_ledger
    grading.isolate_judge_caches()
    start = time.perf_counter()
    report = grading.grade_file(EXERCISES["02_compile_pipeline"], solution("02_compile_pipeline"),
                                overrides=[case] if case != "-" else [], hidden=hidden)

    def rows(results):
        return [(r.id, r.status, round(r.details.get("check_s", -1), 1), r.message[:200]) for r in results]

    dump(name, {"wall_s": time.perf_counter() - start, "load_s": report.environment.get("load_s"),
                "checks": rows(report.results), "hidden": rows(report.hidden or []), "ledger": ledgers})


def compile_step(name, mode, opt_compile):
    import torch

    from autograder.course.models import mse
    from autograder.exercises.ex02_compile_pipeline.workload import CONFIGS, build_model, make_optimizer, make_sgd

    cfg, batch = CONFIGS["full"]
    res = {"mode": mode, "opt": opt_compile}
    origin = time.perf_counter()

    def make_step(model, optimizer):
        compiled = torch.compile(model, mode=None if mode == "default" else mode)
        opt_step = torch.compile(optimizer.step) if opt_compile == "1" else optimizer.step

        def step(x, y):
            if mode in ("max-autotune", "reduce-overhead"):
                torch.compiler.cudagraph_mark_step_begin()
            loss = mse(compiled(x), y)
            loss.backward()
            opt_step()
            optimizer.zero_grad(set_to_none=True)
            return loss.detach().clone()

        return step

    odd = (batch // 2 + 1, cfg.seq // 2)
    for optname, shapes in [("sgd", [(batch, cfg.seq), odd]), ("adamw", [(batch, cfg.seq)]),
                            ("sgd-again", [(batch, cfg.seq), odd])]:
        torch._dynamo.reset()
        model = build_model("full", 1, "cuda")
        step = make_step(model, make_sgd(model) if optname.startswith("sgd") else make_optimizer(model))
        for b, t in shapes:
            x = torch.randn(b, t, cfg.dim, device="cuda")
            y = torch.randn_like(x)
            t0 = time.perf_counter()
            step(x, y)
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            for _ in range(3):
                step(x, y)
            torch.cuda.synchronize()
            key = f"{optname} {b}x{t}"
            res[key] = {"first_s": round(first, 2), "warm_ms": round((time.perf_counter() - t0) / 3 * 1e3, 2)}
            print("STEP", key, res[key], round(time.perf_counter() - origin, 1), flush=True)
            dump(name, res)


if __name__ == "__main__":
    if sys.argv[1] == "grade":
        grade(sys.argv[2], sys.argv[3], sys.argv[4] == "1")
    else:
        compile_step(sys.argv[2], sys.argv[3], sys.argv[4])
