# outcome: rejected | kind: cheat | checks: speed | reason: beside the requests / compiled while serving / too slow | device: gpu | class: 6
# The GPU form of docs/redteam-open/ex05_relay_child.py (a red team of 05's traffic design, 2026-11-29): the
# worker only relays; a fresh Python (exec, so it can use CUDA) loads the model, serves every request, and compiles
# one graph per exact length (most common first, no padding, its own Dynamo: no graph stop) in a thread of its own,
# beside the requests. Requests and replies go through files both processes map (the child moves them to the GPU).
# The worker's compile counters (a diagnostic) see nothing; the operating system counts the child's CPU (the
# worker's control group) beside the requests: beyond 10 s, few_graphs (over the unseen requests) or speed fails.
# Written 2026-11-29 (fourth session); not yet graded on a GPU. On this CPU (a smoke run by hand, 78 s) it served
# right through the child (few_graphs, outputs_match passed as an eager server) and failed speed: "a block of 64
# request(s) took 1035 ms beyond their steady time ... something compiled while serving them".
import os
import struct
import subprocess
import sys
import tempfile

import torch

CHILD = r"""
import os, struct, sys, threading
import torch
import torch._dynamo
req_r, ack_w, hi, d = map(int, sys.argv[1:5])
path, device, order = sys.argv[5], sys.argv[6], [int(t) for t in sys.argv[7].split(",")]
model = torch.load(path + ".model", weights_only=False).to(device)
inp = torch.from_file(path + ".in", shared=True, size=hi * d)
out = torch.from_file(path + ".out", shared=True, size=hi * d)
torch._dynamo.config.recompile_limit = 100000
torch._dynamo.config.cache_size_limit = 100000
encode = torch.compile(model.encode, dynamic=False)
ready = set()

def compiler():
    for t in order:
        with torch.no_grad():
            encode(torch.zeros(1, t, d, device=device), None)
        ready.add(t)

threading.Thread(target=compiler, daemon=True).start()
with torch.no_grad():
    while True:
        raw = os.read(req_r, 4)
        if len(raw) < 4:
            os._exit(0)
        t = struct.unpack("i", raw)[0]
        x = inp[: t * d].view(1, t, d).to(device)
        y = encode(x, None) if t in ready else model.encode(x, None)
        out[: t * d].copy_(y.reshape(-1).cpu())
        os.write(ack_w, b"k")
"""


def make_server(model, traffic):
    d, hi = model.dim, model.max_len
    device = next(model.parameters()).device
    path = os.path.join(tempfile.mkdtemp(dir="."), "relay")
    torch.save(model, path + ".model")
    for end in (".in", ".out"):
        with open(path + end, "wb") as f:
            f.truncate(hi * d * 4)
    inp = torch.from_file(path + ".in", shared=True, size=hi * d)
    out = torch.from_file(path + ".out", shared=True, size=hi * d)
    req_r, req_w = os.pipe()
    ack_r, ack_w = os.pipe()
    order = sorted(set(traffic), key=lambda t: -traffic.count(t))
    subprocess.Popen([sys.executable, "-c", CHILD, str(req_r), str(ack_w), str(hi), str(d), path, str(device),
                      ",".join(map(str, order))], pass_fds=(req_r, ack_w))

    def handle(x):
        model.requests += 1
        t = x.shape[1]
        inp[: t * d].copy_(x.reshape(-1).cpu())
        os.write(req_w, struct.pack("i", t))
        os.read(ack_r, 1)
        return out[: t * d].view(1, t, d).to(x.device, copy=True)

    return handle
