"""Exercise 01: eager mode and your first compile (spec.py: the checks; workload.py: what the notebook uses)."""
