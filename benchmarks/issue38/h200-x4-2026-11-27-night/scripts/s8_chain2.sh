#!/bin/bash
# ex06 branch (fast), then main: the WRONG rows regraded (cases2.txt), last sitting's unreached cases (cases1.txt), 03's cases until 20
source /tmp/repo/.gpu/s8_lib.sh
cd /tmp/ex06; export PYTHONPATH=/tmp/site:/tmp/ex06
el probe; taskset -c 32-47 timeout $(rem 120) python3 benchmarks/design/ex06_transfer.py --device cuda --size full > $P/ex06_probe.jsonl 2> $P/ex06_probe.err; el "probe rc=$?"
taskset -c 32-47 bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 500) --exercise 06_cuda_graphs --part reference --runs 20 --out benchmarks" >> $P/ex06_refs.log 2>&1; el refs
taskset -c 32-47 bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 400) --exercise 06_cuda_graphs --part cases --gpu-specific --until 3 --jobs 3 --out benchmarks" >> $P/ex06_cases.log 2>&1; el cases3
rm -rf $P/ex06_bench; cp -a benchmarks $P/ex06_bench
cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
taskset -c 32-47 bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 400) --part cases --case-runs 1 --jobs 3 $(sed 's/^/--case /' .gpu/cases2.txt) --out $P/main_cases2" >> $P/main_cases2.log 2>&1; el cases2
taskset -c 32-47 bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 300) --part cases --case-runs 1 --jobs 3 $(sed 's/^/--case /' .gpu/cases1.txt) --out $P/main_cases1" >> $P/main_cases1.log 2>&1; el cases1
taskset -c 32-47 bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 2000) --exercise 03_compile_modes --part cases --gpu-specific --until 20 --jobs 3 --out $P/main_03" >> $P/main_03.log 2>&1; el "03 cases"
taskset -c 32-47 bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 2000) --exercise 06_cuda_graphs --part cases --gpu-specific --until 20 --jobs 3 --out /tmp/ex06/benchmarks" >> $P/ex06_cases.log 2>&1; el "06 cases20"
rm -rf $P/ex06_bench; cp -a /tmp/ex06/benchmarks $P/ex06_bench
