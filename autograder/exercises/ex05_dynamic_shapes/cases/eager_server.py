# outcome: rejected | kind: wrong | checks: - | gpu_checks: speed | reason: too slow | note: nothing was compiled / no graph was compiled | device: any | class: 4
# Found by an independent red team (2026-11-24): a server that compiles nothing. It recompiles nothing and its
# outputs are the eager model's, so a check of "no recompile, at most 6 graphs" holds for it literally; the
# graph count must be at least one (self-reported), and on a GPU the speed gate fails it too.


def make_server(model, traffic):
    def handle(x):
        return model(x)  # forward counts model.requests itself

    return handle
