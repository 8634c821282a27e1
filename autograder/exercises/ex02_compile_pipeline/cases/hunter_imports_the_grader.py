# outcome: passed | kind: cheat | checks: hunter_graph,hunter_node | reason: the grader's own hunter | device: any
# The seventeenth red team (2026-11-29, CPU): NanHunter is the grader's own truth, imported from its spec. Kept as a
# case that passes, on purpose: the grader's code is open and installed wherever a learner grades, and its truth for
# part (a) is a working hunter that runs each graph node by node in the submission's process, which is the exercise.
# Copying it is copying a published solution (docs/THREAT_MODEL.md, "What is still not defended").
from autograder.exercises.ex02_compile_pipeline.spec import TrustedHunter as NanHunter  # noqa: F401
