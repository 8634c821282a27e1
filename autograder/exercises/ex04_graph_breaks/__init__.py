"""Exercise 04: graph breaks (spec.py: the checks; workload.py: what the notebook uses)."""
