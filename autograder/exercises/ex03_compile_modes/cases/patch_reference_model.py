# outcome: rejected | kind: cheat | checks: predict_correct | reason: differs | device: any | class: 1
# Turns the standardisation and every residual block into the identity wherever the submission can reach the
# model code (the classes, the builder), then serves the identity: the judge builds its reference from its own
# copy of the code.
import autograder.course.models as _models
import autograder.exercises.ex03_compile_modes.workload as _workload

_models.ResidualMLPBlock.forward = lambda self, x: x
_models.torch.nn.LayerNorm.forward = lambda self, x: x
_workload.Standardize.forward = lambda self, x: x


def make_predict(model):
    return lambda x: x.clone()
