#!/bin/bash
# one H200, the next sitting (planned at the end of the 2026-11-29 seventh session): lessons 4 and 5 at full size
# (changed after this sitting's run: lesson 4's quieted metrics logger, lesson 5's skip_guard_eval_unsafe and PGO
# cells), kept for `python -m autograder.tools.lesson_outputs` (move the record's 04/05 into earlier/ first, or
# extract into a scratch --out and merge the two new cells' outputs); then 02's reference toward 20 gradings with
# its NaN hunter (3 so far). Copy to .gpu/chain_single.sh, with start1.sh, wait1.sh and lib.sh from
# benchmarks/issue38/h200-2026-11-29-e/scripts/; run `bash .gpu/start1.sh 1540 540` with carry
# [".gpu", ".whl4"] (tlparse-*.whl in .whl4), poll with `bash .gpu/wait1.sh 450`.
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
export PATH=/tmp/site/bin:$PATH
mkdir -p $P/nb
for nb in lessons/04_graph_breaks.ipynb lessons/05_dynamic_shapes.ipynb; do
  t=$(rem 300); [ $t -lt 120 ] && { el "skip $nb"; continue; }
  timeout $t python3 -m autograder.tools.run_notebooks --size full --device cuda --out $P/nb $nb >> $P/lessons.log 2>&1
  el "lesson rc=$? $nb"
done
gc $(rem 900) --exercise 02_compile_pipeline --part reference --runs 17 --accumulate --out $P/b02r >> $P/r02.log 2>&1
el "02 refs"
