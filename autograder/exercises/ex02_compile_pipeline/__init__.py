"""Exercise 02: the compile pipeline (spec.py: the checks; workload.py: what the notebook uses)."""
