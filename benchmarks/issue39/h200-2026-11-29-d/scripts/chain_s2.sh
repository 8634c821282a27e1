#!/bin/bash
# one H200, 2026-11-29 eighth session, sitting 2: lessons 2 (new memory cell) and 4 (new torch.export section) at full
# size, then 02's reference toward 20 gradings with its NaN hunter (11 so far).
# Run as .gpu/chain_single.sh with start1.sh, wait1.sh and lib.sh from benchmarks/issue38/h200-2026-11-29-e/scripts/:
# `bash .gpu/start1.sh 1000 540`, carry [".gpu", ".whl4"] (papermill's wheels and tlparse in .whl4).
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
export PATH=/tmp/site/bin:$PATH
mkdir -p $P/nb
for nb in lessons/02_compile_pipeline.ipynb lessons/04_graph_breaks.ipynb; do
  t=$(rem 330); [ $t -lt 120 ] && { el "skip $nb"; continue; }
  timeout $t python3 -m autograder.tools.run_notebooks --size full --device cuda --out $P/nb $nb >> $P/lessons.log 2>&1
  el "lesson rc=$? $nb"
done
mkdir -p $P/b02r; cp -r benchmarks/gpu-runs $P/b02r/; cp benchmarks/gpu-results.json $P/b02r/
gc $(rem 400) --exercise 02_compile_pipeline --part reference --runs 9 --accumulate --out $P/b02r >> $P/r02.log 2>&1
el "02 refs"
