"""Exercise 05: dynamic shapes (spec.py: the checks; workload.py: what the notebook uses)."""
