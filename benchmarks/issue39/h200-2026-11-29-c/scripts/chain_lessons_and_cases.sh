#!/bin/bash
# one H200, the next sitting (planned 2026-11-29 fifth session). First every lesson at full size (issue 39 item 5:
# the lessons changed after the outputs in benchmarks/lesson-outputs/ were taken), executed copies kept for
# `python -m autograder.tools.lesson_outputs`; then the two cases changed after the fifth sitting; then cases with
# fewer than 3 GPU gradings. A case grading can take 150 s past gpu_check's --deadline (read before each case
# starts), so each cases part's deadline leaves that much inside its timeout.
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
# lesson 4 runs tlparse (a binary wheel: put tlparse-*.whl into .whl4 with the wheelhouse's; --target puts it here)
export PATH=/tmp/site/bin:$PATH
mkdir -p $P/nb
for nb in lessons/0*.ipynb; do
  t=$(rem 300); [ $t -lt 120 ] && { el "skip $nb"; continue; }
  timeout $t python3 -m autograder.tools.run_notebooks --size full --device cuda --out $P/nb $nb >> $P/lessons.log 2>&1
  el "lesson rc=$? $nb"
done
gcases() { local t=$1; shift; [ $t -lt 200 ] && { el "skip (t=$t): $*"; return; }
  timeout $t python3 -m autograder.tools.gpu_check --deadline $((t-160)) "$@"; el "gpu_check rc=$? $*"; }
# 02's new part (a) (NanHunter, 2026-11-29 sixth session): the reference 3 times (part (b)'s speed with it), its cases
timeout $(rem 400) python3 -m autograder.tools.gpu_check --exercise 02_compile_pipeline --part reference --runs 3 --accumulate --out $P/b02r >> $P/r02.log 2>&1; el "02 refs"
H=$(for c in hunter_output_only hunter_keeps_the_last hunter_by_name hunter_static_pattern hunter_result_inf_for_nan hunter_cleans_result hunter_elsewhere hunter_imports_the_grader; do echo -n "--case 02_compile_pipeline/$c "; done)
gcases $(rem 420) --part cases --until 1 --jobs 2 $H --out $P/c02 >> $P/c02.log 2>&1
gcases $(rem 420) --part cases --until 2 --jobs 2 --case 05_dynamic_shapes/constant_latency --case 03_compile_modes/side_process_autotune --out $P/cnext >> $P/cnext.log 2>&1
cp /tmp/course-case-*.log $P/ 2>/dev/null; el "side logs"
C="04_graph_breaks/hidden_branch 04_graph_breaks/compile_model_rebound 05_dynamic_shapes/relay_exec_child 05_dynamic_shapes/mark_dynamic 05_dynamic_shapes/metrics_thread 05_dynamic_shapes/oneshot_notify 05_dynamic_shapes/access_log 05_dynamic_shapes/naive 05_dynamic_shapes/lazy_buckets 05_dynamic_shapes/no_graph_budget 05_dynamic_shapes/reset_drops_graph_stop 03_compile_modes/clone_outside 03_compile_modes/half_precision"
A=$(for c in $C; do echo -n "--case $c "; done)
gcases $(rem 900) --part cases --until 3 --jobs 3 $A --out $P/cmore >> $P/cmore.log 2>&1
