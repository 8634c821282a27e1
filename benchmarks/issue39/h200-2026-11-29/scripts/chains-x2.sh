# The two chains of the x2 lease (chain0.sh on GPU0, chain1.sh on GPU1), as they ran:
# chain0: benchmarks/design/ex05_traffic.py --device cuda (420 s limit), then 06's six unreached cases --until 3 --jobs 3
# chain1: 01's reference --runs 20 (420 s limit), then 01's --gpu-specific cases --until 3 (not reached: deadline)
