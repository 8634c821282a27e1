"""Exercise 03: compile modes (spec.py: the checks; workload.py: what the notebook uses)."""
