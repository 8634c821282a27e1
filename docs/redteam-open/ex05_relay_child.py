# OPEN (not a case: docs/redteam-open). Would be: outcome: rejected | kind: cheat | checks: speed | device: gpu | class: 6
# Red team (2026-11-29, exercise 05, CPU). Its own note below says the grader stops only the worker between requests;
# the judge stops the whole tree (Session.processes), so the child runs only while a request is outstanding, in
# parallel with it. What it escapes: the worker's compile counters (a diagnostic) and the graph stop (its own
# Dynamo), and on a GPU it could compile exact lengths during the speed check's warm-up and blocks. On a CPU it compiled
# no graph during a grading (0 of 23 requests served compiled): few_graphs and outputs_match passed as an eager server.
# The server runs in a forked child: the grader stops only the worker between requests, so the child keeps
# compiling (one graph per exact length, no padding, no graph limit) between requests and after the compile
# budget's window; the worker only relays. The worker's compile counters see nothing.
import os, struct, threading, time
import torch
import torch._dynamo

STATE = {"children": []}

def make_server(model, traffic):
    d, hi = model.dim, model.max_len
    inp = torch.zeros(hi * d).share_memory_()
    out = torch.zeros(hi * d).share_memory_()
    count = torch.zeros(2, dtype=torch.int64).share_memory_()  # graphs ready, child requests served
    req_r, req_w = os.pipe()
    ack_r, ack_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        torch.set_num_threads(1)
        torch._dynamo.reset()
        torch._dynamo.config.recompile_limit = 1000
        torch._dynamo.config.cache_size_limit = 1000
        encode = torch.compile(model.encode, dynamic=False)
        ready = set()
        lock = threading.Lock()
        order = sorted(range(2, hi + 1), key=lambda t: -traffic.count(t))  # most common lengths first

        def compiler():
            for t in order:
                with torch.no_grad():
                    encode(torch.zeros(1, t, d), None)
                ready.add(t)
                count[0] = len(ready)

        threading.Thread(target=compiler, daemon=True).start()
        with torch.no_grad():
            while True:
                raw = os.read(req_r, 4)
                if len(raw) < 4:
                    os._exit(0)
                t = struct.unpack("i", raw)[0]
                x = inp[: t * d].view(1, t, d)
                y = encode(x, None) if t in ready else model.encode(x, None)
                out[: t * d].copy_(y.reshape(-1))
                count[1] += 1
                os.write(ack_w, b"k")
    STATE["children"].append(count)
    if len(STATE["children"]) == 3:  # the speed check's make_server (on a CPU it then says 'needs a GPU')
        raise RuntimeError(f"PROBE children so far: graphs compiled / requests served = "
                           f"{[c.tolist() for c in STATE['children'][:2]]}")

    def handle(x):
        model.requests += 1
        t = x.shape[1]
        inp[: t * d].copy_(x.reshape(-1))
        os.write(req_w, struct.pack("i", t))
        os.read(ack_r, 1)
        return out[: t * d].view(1, t, d).clone()
    return handle
