#!/bin/bash
# one x4 sitting (2026-11-27, seventh session): four chains, one per GPU, 16 cores each, in sessions of their own
set -u
P=/tmp/persist; mkdir -p $P; rm -rf /tmp/repo; cp -a . /tmp/repo; cd /tmp/repo
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl4/*.whl > $P/pip.log 2>&1
for e in 01 05 06; do rm -rf /tmp/ex$e; mkdir -p /tmp/ex$e; tar xzf .gpu/ex$e.tar.gz -C /tmp/ex$e; done
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; python3 -c "import torch; print(torch.__version__)"; date -u; } > $P/host.txt 2>&1
export PYTHONUNBUFFERED=1 DEADLINE=$(( $(date +%s) + ${1:-1600} ))
echo $DEADLINE > $P/deadline
for g in 0 1 2 3; do
  setsid bash -c "export CUDA_VISIBLE_DEVICES=$g; bash /tmp/repo/.gpu/s8_chain$g.sh > $P/s8_gpu$g.log 2>&1; date +%s > $P/s8_gpu$g.end" < /dev/null > /dev/null 2>&1 &
done
sleep 20; cat $P/host.txt; tail -3 $P/pip.log; cat $P/s8_gpu*.log
bash /tmp/repo/.gpu/s8_wait.sh ${2:-540}
