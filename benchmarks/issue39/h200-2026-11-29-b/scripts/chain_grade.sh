#!/bin/bash
# one H200, part 2: exercise 05 at max_len 8192 (chosen from part 1's probe): the reference 20 times, then its GPU
# cases 3 times each (the lesson's recipe first), then 01's reference to 20 with what is left
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
taskset -c 0-15 bash -c "source /tmp/repo/.gpu/lib.sh; T0=$T0; gc \$(rem 470) --exercise 05_dynamic_shapes --part reference --runs 20 --out $P/b05r" >> $P/r05.log 2>&1; el "05 refs"
C="lesson_recipe geometric_buckets dynamic_reduce_overhead eager_server dynamic_false mark_dynamic naive stance_eager_long dynamic_true automatic_dynamic yardstick_burners precompile_lengths lazy_buckets sleep_hides_compiles constant_latency no_graph_budget watched_eager"
A=$(for c in $C; do echo -n "--case 05_dynamic_shapes/$c "; done)
taskset -c 0-15 bash -c "source /tmp/repo/.gpu/lib.sh; T0=$T0; gc \$(rem 700) --part cases --until 3 --jobs 3 $A --out $P/b05c" >> $P/c05.log 2>&1; el "05 cases"
mkdir -p $P/b01r; cp -r benchmarks/gpu-runs $P/b01r/; cp benchmarks/gpu-results.json $P/b01r/
taskset -c 0-15 bash -c "source /tmp/repo/.gpu/lib.sh; T0=$T0; gc \$(rem 400) --exercise 01_eager_mode --part reference --runs 6 --accumulate --out $P/b01r" >> $P/r01.log 2>&1; el "01 refs"
