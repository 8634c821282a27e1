#!/bin/bash
# one H200, next sitting after 2026-11-30: exercise 02 (b) at penalty 1e-3, graded through the grader.
# The reference 20 times (its NaN hunter too), then the traps and honest alternatives 3 times, the red team's four
# once, then 05's four honest cases with their speed check (never GPU-graded), while the deadline allows.
# Run with start1.sh, wait1.sh and lib.sh from benchmarks/issue38/h200-2026-11-29-e/scripts/:
# `bash .gpu/start1.sh 1560 540`, carry [".gpu", ".whl4"].
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
export PATH=/tmp/site/bin:$PATH
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
F=05_dynamic_shapes
gc $(rem 240) --exercise $F --part cases --case $F/dynamic_reduce_overhead --case $F/geometric_buckets \
  --case $F/metrics_thread --case $F/oneshot_notify --case-runs 1 --accumulate --out $P/b02r >> $P/c05.log 2>&1
el "05 honest x1"
