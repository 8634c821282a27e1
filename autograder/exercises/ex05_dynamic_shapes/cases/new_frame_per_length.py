# outcome: rejected | kind: cheat | checks: few_graphs | reason: something compiled / was stopped after | device: cpu | class: 7
# After the sixteenth red team (2026-11-29, CPU): one static graph per exact length, compiled the first time the
# length arrives (unseen ones included) with the cheapest backend ("eager": Dynamo traces, Inductor never runs),
# each length in a fresh code object so that no frame ever recompiles (Dynamo's recompile limit and the grader's
# graph budget never see it), under its own stance, after torch._dynamo.reset() in make_server. The judge's clock
# and the operating system's count of CPU see an unseen request trace: rejected. On the CPU only: on a GPU host a
# trace of the encoder could fit under the 250 ms a request may take, and the case would earn what an eager server
# earns (few_graphs and outputs_match; the speed gate fails it, as it fails eager).
import types

import torch

_cache = {}


def make_server(model, traffic):
    torch._dynamo.reset()

    def compiled_for(t):
        fn = _cache.get(t)
        if fn is None:
            encode = type(model).encode
            code = encode.__code__.replace(co_name=f"encode_{t}")  # a new frame per length: a first compile each
            f = types.FunctionType(code, encode.__globals__, f"encode_{t}", encode.__defaults__, encode.__closure__)
            fn = _cache[t] = torch.compile(types.MethodType(f, model), backend="eager", dynamic=False)
        return fn

    with torch.no_grad():
        for t in sorted(set(traffic))[:6]:
            compiled_for(t)(torch.zeros(1, t, model.dim), None)

    def handle(x):
        model.requests += 1
        with torch.compiler.set_stance("default"):
            return compiled_for(x.shape[1])(x, None)

    return handle
