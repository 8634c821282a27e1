# outcome: passed | kind: honest | checks: train_step_correct | reason: legitimate | note: without a break | device: any
# Legitimate: regional compilation, each block compiled on its own (lesson 2, section 6).
def make_train_step(model, optimizer):
    for block in model:
        block.compile()

    def step(x, y):
        return train_step(model, optimizer, x, y)  # noqa: F821
    return step
