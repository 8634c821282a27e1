# outcome: rejected | kind: wrong | checks: - | gpu_checks: no_graph_breaks | reason: too slow / inconclusive | note: graph break | device: any
# Known wrong: the original block, compiled as it is. Dynamo breaks at the `if`, the .item() and the logging
# call in every block, recompiles on each new .item() value until the limit, and runs no faster than eager.
from autograder.course.models import BrokenBlock


class FixedBlock(BrokenBlock):
    pass
