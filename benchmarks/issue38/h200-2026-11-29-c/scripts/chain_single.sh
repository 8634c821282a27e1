#!/bin/bash
# one H200, 2026-11-29 fourth sitting: every reference 3 times (the one-core pin and the beside count on a GPU),
# then queued gradings dropped into $P/queue by later calls, then 01's guard-block cases and 05's cases to 3
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
( while true; do { date +%T; ps -eLo pid,tid,ppid,time,pcpu,comm --sort=-time | head -12; } >> $P/ps.log; sleep 5; done ) &
q() { for f in $(ls $P/queue/*.sh 2>/dev/null | sort); do mv $f $f.run; el "queue $f"; bash $f.run >> $P/queue.log 2>&1; el "queue done $f rc=$?"; done; }
gc $(rem 620) --part reference --runs 3 --out $P/refs >> $P/refs.log 2>&1; el "refs"
q
gc $(rem 240) --part cases --until 3 --jobs 3 --case 01_eager_mode/timed_block_skip --case 01_eager_mode/timed_block_late_check --out $P/c01 >> $P/c01.log 2>&1; el "01 cases"
q
for grp in "lesson_recipe eager_server no_graph_budget reset_drops_graph_stop" "stance_eager_long yardstick_burners precompile_lengths sleep_hides_compiles watched_eager automatic_dynamic" "geometric_buckets dynamic_reduce_overhead dynamic_true mark_dynamic dynamic_false naive lazy_buckets constant_latency"; do
  A=$(for c in $grp; do echo -n "--case 05_dynamic_shapes/$c "; done)
  gc $(rem 400) --part cases --until 3 --jobs 3 $A --out $P/c05 >> $P/c05.log 2>&1; el "05 cases: $grp"
  q
done
while [ $(rem 100000) -gt 30 ]; do q; sleep 5; done
