# ruff: noqa
# A diagnostic written during the sitting and kept as it ran (not course code). Run twice: first with the configs
# [("old_mse", None), ("pen1e-2", 1e-2), ("pen1e-2_seed2", 1e-2, False, 5, 10, 17, 2), ("pen1e-3", 1e-3),
#  ("pen0", 0.0), ("pen1e-2_optc", 1e-2, True)] (-> ../drift-penalty-h200.jsonl), then with the list at the end
# (-> ../drift-penalty1e-3-25blocks-h200.jsonl). Usage: PYTHONPATH=. python drift.py OUT.jsonl
"""Why does the reference's timed update drift from the replay? One process: learner = compiled training_loss with
its own AdamW; replay = eager train_step with its own AdamW, weights synced at each block start (as Replay does)."""
import json, sys, torch
from autograder.exercises.ex02_compile_pipeline import workload as W
from autograder.exercises.ex02_compile_pipeline.workload import build_model, make_optimizer, train_step, copy_params, load_params, param_count, CONFIGS
DEV = torch.device("cuda")
cfg, batch = CONFIGS["full"]
out = open(sys.argv[1], "a")

def run(label, penalty, compiled_opt=False, warm=5, blocks=10, per=17, seed=1):
    torch._dynamo.reset()
    me = build_model("full", seed, DEV); me.penalty = penalty
    ref = build_model("full", seed, DEV); ref.penalty = penalty
    if penalty is None:  # old workload: mse of forward
        me.training_loss = lambda x, y, m=me: W.mse(m(x), y); ref.training_loss = lambda x, y, m=ref: W.mse(m(x), y)
        fn = torch.compile(me)
        loss_fn = lambda x, y: W.mse(fn(x), y)
    else:
        loss_fn = torch.compile(me.training_loss)
    o1, o2 = make_optimizer(me), make_optimizer(ref)
    ostep = torch.compile(o1.step) if compiled_opt else o1.step
    names = [n for n, _ in me.named_parameters()]
    sizes = [p.numel() for p in me.parameters()]
    n = param_count(me)
    gen = torch.Generator(device=DEV).manual_seed(0)
    def batchxy():
        return [torch.randn(batch, cfg.seq, cfg.dim, device=DEV, generator=gen) for _ in range(2)]
    def mystep(x, y):
        l = loss_fn(x, y); l.backward(); ostep(); o1.zero_grad(set_to_none=True); return l.detach()
    for _ in range(warm):
        x, y = batchxy(); mystep(x, y); train_step(ref, o2, x, y)
    load_params_flat = torch.empty(n, device=DEV); copy_params(me, load_params_flat); load_params(ref, load_params_flat)
    rows = []
    for b in range(blocks):
        start = torch.empty(n, device=DEV); copy_params(me, start); load_params(ref, start)
        for _ in range(per):
            x, y = batchxy(); mystep(x, y); train_step(ref, o2, x, y)
        a = torch.empty(n, device=DEV); copy_params(me, a); r = torch.empty(n, device=DEV); copy_params(ref, r)
        d = (a - r); upd = (r - start)
        drift = float(d.norm() / upd.norm())
        k = max(1, n // 1000); top = d.abs().topk(k).values
        trimmed = float((d.norm() ** 2 - (top ** 2).sum()).clamp_min(0).sqrt() / upd.norm())
        per_t = []; off = 0
        for nm, s in zip(names, sizes):
            per_t.append((float(d[off:off+s].norm()), nm, float(d[off:off+s].abs().max()), float(upd[off:off+s].norm()))); off += s
        per_t.sort(reverse=True)
        row = dict(label=label, block=b, drift=drift, trimmed_0p1=trimmed, maxabs=float(d.abs().max()),
                   frac_over_1e5=float((d.abs() > 1e-5).float().mean()), top=per_t[:3])
        rows.append(row); out.write(json.dumps(row) + "\n"); out.flush()
    print(label, "drift per block:", " ".join(f"{r['drift']:.1e}" for r in rows), "| trimmed:", " ".join(f"{r['trimmed_0p1']:.1e}" for r in rows), "| top:", rows[max(range(len(rows)), key=lambda i: rows[i]['drift'])]['top'][:2], flush=True)

torch.backends.cuda.matmul.allow_tf32 = False
for args in [("pen1e-3_optc_25", 1e-3, True, 5, 25), ("pen1e-3_25", 1e-3, False, 5, 25), ("old_mse_optc_25", None, True, 5, 25)]:
    run(*args)
