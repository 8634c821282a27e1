import faulthandler, sys, time, torch
faulthandler.dump_traceback_later(100, exit=True)
from autograder import pipeline
from autograder.exercises.ex01_eager_mode import gelu_bias_chain
def scaled_gelu(x, w, scale, steps):
    y = x @ w
    for _ in range(steps):
        y = y * scale
    y.add_(1.0)
    return torch.nn.functional.gelu(y, approximate="tanh")
def rms_then_softcap(x):
    return 30.0 * torch.tanh(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) / 30.0)
x = torch.randn(8, 16, device="cuda"); w = torch.randn(16, 16, device="cuda", requires_grad=True)
functions = {"scaled_gelu": lambda x: scaled_gelu(x, w, 0.5, 3), "rms_then_softcap": rms_then_softcap,
             "gelu_bias_chain": lambda x: gelu_bias_chain(x, w[0])}
for fname, fn in functions.items():
    for stage in ("dynamo", "aot", "inductor"):
        t = time.time()
        torch._dynamo.reset()
        if stage == "dynamo":
            keep = []
            torch.compile(fn, backend=lambda gm, ex, keep=keep: keep.append(gm.code.strip()) or gm.forward)(x)
        elif stage == "aot":
            pipeline.aot_graphs(fn, x)
        else:
            _, code = pipeline.inductor_code(fn, x); print(pipeline.kernel_names(code))
        print(fname, stage, round(time.time() - t, 2), flush=True)
