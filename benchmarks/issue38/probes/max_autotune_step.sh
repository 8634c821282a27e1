#!/bin/bash
# Issue 38 item 5: a max-autotune training step of 02, first calls timed in-process: cold caches, then a new process
# on the caches the first left (the "warm worker cache" a class would start from).
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
rm -rf .gpu/cache; mkdir -p .gpu/cache
export TORCHINDUCTOR_CACHE_DIR=$PWD/.gpu/cache/inductor TRITON_CACHE_DIR=$PWD/.gpu/cache/triton
nproc; date
timeout 470 python3 .gpu/probe02.py compile mat_cold max-autotune 1 2>&1 | grep -E "^STEP|Traceback|Error:" | grep -v "out of resource" | tail -20
du -sh .gpu/cache
timeout 100 python3 .gpu/probe02.py compile mat_warm max-autotune 1 2>&1 | grep -E "^STEP|Traceback" | tail -20
