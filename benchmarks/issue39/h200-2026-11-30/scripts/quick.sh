#!/bin/bash
# second sitting of 2026-11-30: drift at PENALTY 1e-3 over 25 blocks, then the reference until the deadline
P=$OUT; T0=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl4/*.whl > $P/pip.log 2>&1
export PYTHONPATH=/tmp/site:$PWD PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1
timeout 150 python3 .gpu/drift.py $P/drift.jsonl 2>&1 | grep -v -i warn | grep drift
echo "$(( $(date +%s) - T0 )) s: drift done"
mkdir -p $P/b02r; cp -r benchmarks/gpu-runs $P/b02r/; cp benchmarks/gpu-results.json $P/b02r/
left=$(( 270 - ($(date +%s) - T0) ))
timeout $left python3 -m autograder.tools.gpu_check --deadline $(( left - 15 )) --exercise 02_compile_pipeline --part reference --runs 8 --accumulate --out $P/b02r > $P/r02.log 2>&1
grep -o "reference [0-9]* ([^)]*)\|train_step_speed ([0-9/]*): [^|]\{0,120\}" $P/r02.log
echo "$(( $(date +%s) - T0 )) s: end"
