"""Issue 38 item 5 probe: where 02's grading time goes (per check, per request), cold and warm caches, and what
a max-autotune training step's first compile costs on this GPU (in-process, outside the grader)."""
import json, os, sys, tempfile, time
OUT = os.environ.get("OUT", "/tmp")
what = sys.argv[1]

def dump(name, obj):
    with open(f"{OUT}/{name}.json", "w") as f:
        json.dump(obj, f, indent=1, default=str)
    print(name, json.dumps(obj, default=str)[:3000], flush=True)

if what == "grade":
    # argv: grade NAME CASE|- HIDDEN
    name, case, hidden = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
    from autograder.core import grading
    from autograder.tools.gpu_check import solution, EXERCISES
    ledgers = []
    orig = grading.Session.close
    def close(self):
        agg = {}
        for n, s in self.ledger:
            a = agg.setdefault(n, [0, 0.0]); a[0] += 1; a[1] += s
        ledgers.append(sorted(((n, c, round(s, 2)) for n, (c, s) in agg.items()), key=lambda r: -r[2])[:12])
        return orig(self)
    grading.Session.close = close
    grading.isolate_judge_caches()
    t = time.perf_counter()
    rep = grading.grade_file(EXERCISES["02_compile_pipeline"], solution("02_compile_pipeline"),
                             overrides=[case] if case != "-" else [], hidden=hidden)
    res = {"wall_s": time.perf_counter() - t, "load_s": rep.environment.get("load_s"),
           "checks": [(r.id, r.status, round(r.details.get("check_s", -1), 1), r.message[:200]) for r in rep.results],
           "hidden": [(r.id, r.status, round(r.details.get("check_s", -1), 1), r.message[:200]) for r in getattr(rep, "hidden", []) or []],
           "ledger": ledgers}
    dump(name, res)
elif what == "compile":
    # argv: compile NAME MODE OPTMODE  -- in-process: step compile times, first call per (optimizer, shape)
    import torch
    name, mode, opt_compile = sys.argv[2], sys.argv[3], sys.argv[4]
    from autograder.exercises.ex02_compile_pipeline.workload import CONFIGS, build_model, make_optimizer, make_sgd
    from autograder.course.models import mse
    cfg, batch = CONFIGS["full"]
    res = {"mode": mode, "opt": opt_compile}
    T0 = time.perf_counter()
    def make_step(model, optimizer):
        compiled = torch.compile(model, mode=None if mode == "default" else mode)
        opt_step = torch.compile(optimizer.step) if opt_compile == "1" else optimizer.step
        def step(x, y):
            if mode in ("max-autotune", "reduce-overhead"):
                torch.compiler.cudagraph_mark_step_begin()
            loss = mse(compiled(x), y); loss.backward(); opt_step(); optimizer.zero_grad(set_to_none=True)
            return loss.detach().clone()
        return step
    for rnd, (optname, shapes) in enumerate([("sgd", [(batch, cfg.seq), (batch // 2 + 1, cfg.seq // 2)]),
                                               ("adamw", [(batch, cfg.seq)]), ("sgd-again", [(batch, cfg.seq), (batch // 2 + 1, cfg.seq // 2)])]):
        torch._dynamo.reset()
        model = build_model("full", 1, "cuda")
        opt = make_sgd(model) if optname.startswith("sgd") else make_optimizer(model)
        step = make_step(model, opt)
        for b, t in shapes:
            x = torch.randn(b, t, cfg.dim, device="cuda"); y = torch.randn_like(x)
            t0 = time.perf_counter(); step(x, y); torch.cuda.synchronize(); first = time.perf_counter() - t0
            t0 = time.perf_counter()
            for _ in range(3): step(x, y)
            torch.cuda.synchronize()
            res[f"{optname} {b}x{t}"] = {"first_s": round(first, 2), "warm_ms": round((time.perf_counter() - t0) / 3 * 1e3, 2)}
            print("STEP", optname, b, t, res[f"{optname} {b}x{t}"], round(time.perf_counter() - T0, 1), flush=True)
            dump(name, res)
