#!/bin/bash
# one H200, part 1: exercise 05's design probe at two larger max_len (the lesson's equal-width recipe must lose to
# eager on any host; the padding-optimal reference must stay >= 2.5x)
source /tmp/repo/.gpu/lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo
for c in d1024-4096 d1024-8192; do
  taskset -c 0-15 timeout $(rem 400) python3 benchmarks/design/ex05_traffic.py --device cuda --config $c \
    --strategy equal4_ro --strategy dp6_tokens_ro --strategy pow2_ro --strategy dyn_default --strategy dyn_ro \
    >> $P/probe05.jsonl 2>> $P/probe05.err; el "probe $c rc=$?"
done
