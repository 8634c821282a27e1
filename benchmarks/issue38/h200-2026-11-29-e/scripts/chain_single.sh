#!/bin/bash
# one H200, the next sitting (planned 2026-11-29 fourth session): the cases written or changed without a GPU first,
# then the honest 05 cases, then 05's reference to 20
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
C="03_compile_modes/side_process_autotune 05_dynamic_shapes/relay_exec_child 05_dynamic_shapes/constant_latency 05_dynamic_shapes/metrics_thread 01_eager_mode/background_gpu_load"
A=$(for c in $C; do echo -n "--case $c "; done)
gc $(rem 500) --part cases --until 2 --jobs 1 $A --out $P/cnew >> $P/cnew.log 2>&1; el "new cases"
C="geometric_buckets dynamic_reduce_overhead dynamic_true mark_dynamic dynamic_false naive lazy_buckets automatic_dynamic"
A=$(for c in $C; do echo -n "--case 05_dynamic_shapes/$c "; done)
gc $(rem 500) --part cases --until 3 --jobs 3 $A --out $P/c05 >> $P/c05.log 2>&1; el "05 honest and wrong"
mkdir -p $P/b05r; cp -r benchmarks/gpu-runs $P/b05r/; cp benchmarks/gpu-results.json $P/b05r/
gc $(rem 400) --exercise 05_dynamic_shapes --part reference --runs 3 --accumulate --out $P/b05r >> $P/r05.log 2>&1; el "05 refs"
