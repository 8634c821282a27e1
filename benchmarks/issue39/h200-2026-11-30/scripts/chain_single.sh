#!/bin/bash
# one H200, 2026-11-30 session: exercise 02 (b) as redesigned (issue 39 item 2: the Regressor's training_loss).
# The design probe (one process), then the reference 20 times through the grader, then the trap and the honest
# alternatives 3 times each, then the other cases once each while the deadline allows.
# Run as .gpu/chain_single.sh with start1.sh, wait1.sh and lib.sh from benchmarks/issue38/h200-2026-11-29-e/scripts/:
# `bash .gpu/start1.sh 1560 540`, carry [".gpu", ".whl4"].
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
export PATH=/tmp/site/bin:$PATH
timeout $(rem 300) python3 benchmarks/design/ex02_loss_method.py $P/ex02-loss-method.jsonl > $P/probe.log 2>&1
el "probe rc=$?"
mkdir -p $P/b02r; cp -r benchmarks/gpu-runs $P/b02r/; cp benchmarks/gpu-results.json $P/b02r/
gc $(rem 720) --exercise 02_compile_pipeline --part reference --runs 20 --accumulate --out $P/b02r >> $P/r02.log 2>&1
el "02 refs"
C=02_compile_pipeline
gc $(rem 480) --exercise $C --part cases --case $C/wrapper_method --case $C/module_compile --case $C/own_loss_function \
  --case $C/compiled_optimizer_too --case-runs 3 --accumulate --out $P/b02r >> $P/c02.log 2>&1
el "02 traps and honest x3"
gc $(rem 600) --exercise $C --part cases --case $C/regional --case $C/aot_eager --case $C/reduce_overhead_compiled_optimizer \
  --case $C/eager --case $C/bf16_unwatched --case $C/skip_alternate_steps --case $C/hooks_watch --case $C/phase_skip_backward \
  --case $C/whole_step_compiled --case-runs 1 --accumulate --out $P/b02r >> $P/c02b.log 2>&1
el "02 other cases x1"
