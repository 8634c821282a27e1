# outcome: rejected | kind: cheat | checks: few_graphs | reason: something compiled while serving / was stopped after | device: gpu | class: 4
# Found by an independent red team: compiles each length bucket lazily, while serving (unseen lengths too, with
# the compiler's stance set back to default inside the call), and makes every request slow (a 0.3 s sleep) so
# that a threshold of 20x the steady latency (6 s) hides each compile; it also puts Dynamo's graph counter back
# after each compile, so the self-reported count says nothing was compiled. The threshold now grows with the
# steady latency only up to twice the grader's own eager request: a compile still shows above the sleep. A GPU
# case: rejected on a quiet CPU, but on a loaded one (CI) a compile served from a warm cache took under the
# threshold (one grading in two), so the CPU suite does not hold it; not yet graded on a GPU.
import time

import torch
from torch._dynamo.utils import counters


def make_server(model, traffic):
    encode = torch.compile(model.encode, dynamic=False)
    step = model.max_len // 4

    def handle(x):
        model.requests += 1
        t = x.shape[1]
        length = -(-t // step) * step
        mask = torch.arange(length, device=x.device)[None] >= t
        before = counters["stats"]["unique_graphs"]
        with torch.compiler.set_stance("default"):
            out = encode(torch.nn.functional.pad(x, (0, 0, 0, length - t)), mask)[:, :t].clone()
        counters["stats"]["unique_graphs"] = before
        time.sleep(0.3)
        return out

    return handle
