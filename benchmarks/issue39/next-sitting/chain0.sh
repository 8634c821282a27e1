#!/bin/bash
# GPU0 of an x2 lease (start.sh of benchmarks/issue39/h200-2026-11-29/scripts/): exercise 02 (b) at penalty 1e-3.
# The reference 20 times (the NaN hunter in the same gradings), the traps and two honest alternatives 3 times,
# then the red team's four and three more cases once.
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo PATH=/tmp/site/bin:$PATH
mkdir -p $P/b02r; cp -r benchmarks/gpu-runs $P/b02r/; cp benchmarks/gpu-results.json $P/b02r/
C=02_compile_pipeline
gc $(rem 780) --exercise $C --part reference --runs 20 --accumulate --out $P/b02r >> $P/r02.log 2>&1
el "02 refs"
gc $(rem 420) --exercise $C --part cases --case $C/wrapper_method --case $C/module_compile --case $C/own_loss_function \
  --case $C/compiled_optimizer_too --case-runs 3 --accumulate --out $P/b02r >> $P/c02.log 2>&1
el "02 traps and honest x3"
gc $(rem 360) --exercise $C --part cases --case $C/optimizer_detect --case $C/manual_sgd_update --case $C/notes_lie \
  --case $C/slow_callers --case $C/regional --case $C/reduce_overhead_compiled_optimizer --case $C/aot_eager \
  --case-runs 1 --accumulate --out $P/b02r >> $P/c02b.log 2>&1
el "02 red team and others x1"
