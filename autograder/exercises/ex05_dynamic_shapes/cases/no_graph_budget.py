# outcome: rejected | kind: wrong | checks: few_graphs | reason: compile budget / graphs | device: gpu
# A red team (2026-11-27): precompile_lengths (a static graph for every length) with the grader's graph budget,
# installed inside the worker, rebound to a no-op, and Inductor's cache warmed at import so that make_server's 32
# compiles are cache hits. The budget now charges loading the submission too: on a CPU (2 cores) that came to
# 127 s of 120 (rejected, but too close and too slow for the CPU suite); on a GPU it must be rejected by the judge's
# own facts (the budget), not by the worker's graph count. On an H200 (2026-11-29, max_len 8192) its import alone
# ran 149 s, and the case grading's 150 s limit ended it with "idle, a hang?" on every check: rejected, not for its
# reason. A load is now stopped at the compile budget with the budget's message (Exercise.load_budget); not yet
# regraded on a GPU.
import torch

import autograder.exercises.ex05_dynamic_shapes.workload as _workload

_workload.install_graph_budget = lambda limit: True  # the worker-side stop at the 7th graph: gone

from autograder.exercises.ex05_dynamic_shapes.workload import CONFIGS, build_model  # noqa: E402


def _precompile(model):
    torch._dynamo.config.recompile_limit = 10_000
    encode = torch.compile(model.encode, dynamic=False)
    device = next(model.parameters()).device
    with torch.no_grad():
        for length in range(1, model.max_len + 1):
            encode(torch.zeros(1, length, model.dim, device=device))
    return encode


# import time: the same graphs once, to fill the on-disk compile cache (uncharged in exercise 05)
_precompile(build_model("smoke", 0, "cpu"))
torch._dynamo.reset()


def make_server(model, traffic):
    encode = _precompile(model)

    def handle(x):
        model.requests += 1
        return encode(x)

    return handle
