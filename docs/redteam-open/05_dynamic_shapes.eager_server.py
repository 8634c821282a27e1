# Wrong (no compile at all): handle runs the eager model, counting requests. SHOULD FAIL few_graphs? (its title: "no recompile on unseen lengths, at most 6 graphs" - an uncompiled server satisfies it literally; the speed gate needs a GPU). Probing what few_graphs accepts.


def make_server(model):
    def handle(x):
        return model(x)  # forward counts model.requests itself
    return handle
