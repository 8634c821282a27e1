# outcome: rejected | kind: cheat | checks: few_graphs | reason: compiled while serving / over the compile budget / was stopped after | device: any | class: 7
# A red team (2026-11-27): compiles each bucket the first time a request needs it, and from the 7th request on pads
# every request to T seconds from its start, so a compile shorter than T hides inside a constant latency (the
# median of the warm-up stream's second half, which few_graphs' limit once grew with). The limit now grows with
# the server's steady latency only up to the judge's own eager request (times HONEST_FACTOR): T = 6 s is far over.
# Its buckets follow the model's max_len (they were the smoke size's, 9..32, and its first GPU grading, at full
# size, 2026-11-27, stopped at a length of 100 with StopIteration instead of reaching few_graphs' question). On an
# H200 at max_len 8192 (2026-11-29) its 6 s requests ran the grading into its 150 s limit inside the warm-up stream
# (a timeout, not a verdict): the stream is now stopped at the compile budget. Its second GPU grading (2026-11-29,
# fifth session) fit the stream in the budget and ran out of time in the unseen requests (6 s each, 16 of them):
# an unseen request is now stopped after 5 s (UNSEEN_LIMIT_S), which is where a GPU rejects it.
import time

import torch

PAD = True
T = 6.0
BUCKETS_IN_32NDS = (9, 18, 27, 32)  # of max_len: the warm-up stream (up to max_len / 2) needs the first two buckets,
# long unseen lengths the last two (smoke: 9, 18, 27, 32; full: 72, 144, 216, 256)


def make_server(model, traffic):
    def run(x, mask):
        return model.encode(x * 1.0, mask) * 1.0  # a graph of its own: no cache entry exists for it

    encode = torch.compile(run, dynamic=False, backend="aot_eager")  # a recompile all the same (Dynamo + AOTAutograd), cheaper on a loaded CPU
    served = [0]
    buckets = [-(-model.max_len * k // 32) for k in BUCKETS_IN_32NDS]

    def handle(x):
        start = time.perf_counter()
        served[0] += 1
        model.requests += 1
        t = x.shape[1]
        length = next(b for b in buckets if b >= t)
        mask = torch.arange(length, device=x.device)[None] >= t
        with torch.compiler.set_stance("default"):
            out = encode(torch.nn.functional.pad(x, (0, 0, 0, length - t)), mask)[:, :t].clone()
        left = T - (time.perf_counter() - start)
        if PAD and served[0] > 6 and left > 0:
            time.sleep(left)
        return out

    return handle
