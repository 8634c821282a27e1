"""autograder: the course's one protocol for timing, correctness and structure checks.

Lessons, the self-check cells, nbgrader and papermill all use it.
"""

__version__ = "0.1.0"
