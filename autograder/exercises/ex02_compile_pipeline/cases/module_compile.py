# outcome: rejected | kind: wrong | checks: - | gpu_checks: train_step_speed | reason: too slow | note: nothing was compiled | device: any
# Known wrong: Module.compile() (lesson 1) compiles calls of the module in place; training_loss runs the blocks
# itself and never calls the model, so nothing the step runs is compiled.
def make_train_step(model, optimizer):
    model.compile()

    def step(x, y):
        return train_step(model, optimizer, x, y)  # noqa: F821
    return step
