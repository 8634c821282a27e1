#!/bin/bash
# GPU1 of an x2 lease: 05's four honest cases with their speed check (never GPU-graded), then 04's wrong approaches
# that read 0/20 or 1/20 "for its reason" since 04's rubric changed (graded again from the start, toward 20 each).
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo PATH=/tmp/site/bin:$PATH
mkdir -p $P/b45; cp -r benchmarks/gpu-runs $P/b45/; cp benchmarks/gpu-results.json $P/b45/
F=05_dynamic_shapes
gc $(rem 300) --exercise $F --part cases --case $F/dynamic_reduce_overhead --case $F/geometric_buckets \
  --case $F/metrics_thread --case $F/oneshot_notify --case-runs 1 --accumulate --out $P/b45 >> $P/c05.log 2>&1
el "05 honest x1"
G=04_graph_breaks
# their earlier runs were graded under 04's earlier rubric: aside, so that --until 20 starts each from none
mkdir -p $P/b45/gpu-runs/before-04-rubric
for c in original hidden_branch item_kept disabled; do mv $P/b45/gpu-runs/$G.$c.jsonl $P/b45/gpu-runs/before-04-rubric/; done
gc $(rem 1200) --exercise $G --part cases --case $G/original --case $G/hidden_branch --case $G/item_kept \
  --case $G/disabled --until 20 --accumulate --out $P/b45 >> $P/c04.log 2>&1
el "04 wrong toward 20"
