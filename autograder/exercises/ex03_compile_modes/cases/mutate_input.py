# outcome: rejected | kind: cheat | checks: predict_correct | reason: modified its input | device: any
# Clips the caller's batch in place before serving it (the request changes under the caller), then serves it as
# the reference does (x copied inside the compiled function): its own write is the only one.
def make_predict(model):
    compiled = torch.compile(lambda x: model(x.clone()), mode="reduce-overhead")  # noqa: F821

    def predict(x):
        x.clamp_(-3.0, 3.0)
        return compiled(x).clone()
    return predict
