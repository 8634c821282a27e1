# outcome: rejected | kind: wrong | checks: few_graphs | reason: graphs | device: any
# Known wrong: compiles a static graph for every length the stream could send, in advance (raising the
# recompile limit so Dynamo does not stop it). No recompile ever happens during the stream, but the graphs
# (and the compile time) grow with the number of lengths.
import torch


def make_server(model, traffic):
    torch._dynamo.config.recompile_limit = 10_000
    encode = torch.compile(model.encode, dynamic=False)
    device = next(model.parameters()).device
    with torch.no_grad():
        for length in range(1, model.max_len + 1):
            encode(torch.zeros(1, length, model.dim, device=device))

    def handle(x):
        model.requests += 1
        return encode(x)

    return handle
