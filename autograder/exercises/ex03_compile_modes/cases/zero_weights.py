# outcome: rejected | kind: cheat | checks: predict_correct | reason: differs | device: any | class: 5
# Zeroes the model it was given (every block becomes the identity), so serving is cheap: wrong unless the
# grader computed its expected outputs with that same, modified model object. (Served as the reference serves:
# x copied inside the compiled function.)
def make_predict(model):
    with torch.no_grad():  # noqa: F821
        for p in model.parameters():
            p.zero_()
    compiled = torch.compile(lambda x: model(x.clone()), mode="reduce-overhead")  # noqa: F821

    def predict(x):
        return compiled(x).clone()
    return predict
