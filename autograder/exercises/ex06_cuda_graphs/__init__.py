"""Exercise 06: CUDA graphs by hand (spec.py: the checks; workload.py: what the notebook uses)."""
