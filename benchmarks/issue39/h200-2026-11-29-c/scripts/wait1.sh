#!/bin/bash
P=/tmp/persist; end=$(( $(date +%s) + ${1:-540} ))
while [ $(date +%s) -lt $end ]; do
  n=0; for g in 0; do [ -f $P/gpu$g.end ] && n=$((n+1)); done; [ $n = 1 ] && break; sleep 5
done
tar czf $OUT/persist.tgz -C /tmp persist 2>/dev/null; date -u; echo "left: $(( $(cat $P/deadline) - $(date +%s) )) s"
for g in 0; do echo "--- gpu$g"; cat $P/gpu$g.log; done
for f in $P/*.log; do echo "--- $f"; grep -E "^[0-9]{2}_" $f 2>/dev/null | tail -3 | cut -c1-300; done
for f in $P/*.jsonl; do echo "--- $f"; cut -c1-400 $f | tail -12; done
nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader
