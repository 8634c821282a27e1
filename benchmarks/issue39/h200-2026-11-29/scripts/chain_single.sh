#!/bin/bash
# one H200: exercise 05 (traffic) reference for up to 560 s, then its GPU cases in rounds to the deadline
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
taskset -c 0-15 bash -c "source /tmp/repo/.gpu/lib.sh; T0=$T0; gc \$(rem 560) --exercise 05_dynamic_shapes --part reference --runs 20 --out $P/b05r" >> $P/r05.log 2>&1; el "05 refs"
C="lesson_recipe geometric_buckets dynamic_reduce_overhead eager_server dynamic_false naive mark_dynamic stance_eager_long"
A=$(for c in $C; do echo -n "--case 05_dynamic_shapes/$c "; done)
taskset -c 0-15 bash -c "source /tmp/repo/.gpu/lib.sh; T0=$T0; gc \$(rem 2000) --part cases --until 3 --jobs 3 $A --out $P/b05c" >> $P/c05.log 2>&1; el "05 cases"
