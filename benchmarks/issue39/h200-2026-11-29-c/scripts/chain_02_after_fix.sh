#!/bin/bash
# one H200, the end of the 2026-11-29 seventh sitting: 02's hunter computed on the judge's device (the first run of
# part (a) on a GPU failed every grading: the judge's truth was computed on the CPU), reference once and its cases
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
H=$(for c in hunter_output_only hunter_keeps_the_last hunter_by_name hunter_static_pattern hunter_result_inf_for_nan hunter_cleans_result hunter_elsewhere hunter_imports_the_grader; do echo -n "--case 02_compile_pipeline/$c "; done)
timeout $(rem 130) python3 -m autograder.tools.gpu_check --exercise 02_compile_pipeline --part reference --runs 1 --accumulate --out $P/b02r >> $P/r02.log 2>&1; el "02 ref"
timeout $(rem 200) python3 -m autograder.tools.gpu_check --deadline 60 --part cases --until 1 --jobs 4 $H --out $P/c02 >> $P/c02.log 2>&1; el "02 cases rc=$?"
