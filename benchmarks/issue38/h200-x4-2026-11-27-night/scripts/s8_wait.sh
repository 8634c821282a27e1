#!/bin/bash
P=/tmp/persist; end=$(( $(date +%s) + ${1:-540} ))
while [ $(date +%s) -lt $end ]; do
  n=0; for g in 0 1 2 3; do [ -f $P/s8_gpu$g.end ] && n=$((n+1)); done; [ $n = 4 ] && break; sleep 10
done
tar czf $OUT/persist.tgz -C /tmp persist 2>/dev/null; date -u; echo "left: $(( $(cat $P/deadline) - $(date +%s) )) s"
for g in 0 1 2 3; do echo "--- gpu$g"; cat $P/s8_gpu$g.log; done
for f in ex01_refs ex01_cases ex05_refs ex05_cases ex06_refs ex06_cases main_cases2 main_cases1 main_03; do echo "--- $f"; grep -E "^[0-9]{2}_" $P/$f.log 2>/dev/null | tail -2 | cut -c1-400; done
for e in 01 05 06; do echo "--- probe $e"; tail -c 1200 $P/ex${e}_probe.jsonl 2>/dev/null; tail -3 $P/ex${e}_probe.err 2>/dev/null; done
echo "--- ma"; grep REQ $P/ma_grade.log | awk '$4+0 > 5' | tail -8; tail -5 $P/ma_grade.log | cut -c1-300
nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader
