#!/bin/bash
# one x2 sitting: chains named by argv (chainA.sh on GPU0 cores 0-15, chainB.sh on GPU1 16-31), sessions of their own
# usage: start.sh DEADLINE_S WAIT_S
set -u
P=/tmp/persist; mkdir -p $P; rm -rf /tmp/repo; cp -a . /tmp/repo; cd /tmp/repo
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl4/*.whl > $P/pip.log 2>&1
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA"; cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list /sys/devices/system/cpu/cpu16/topology/thread_siblings_list; python3 -c "import torch; print(torch.__version__)"; date -u; } > $P/host.txt 2>&1
export PYTHONUNBUFFERED=1 DEADLINE=$(( $(date +%s) + ${1:-1600} ))
echo $DEADLINE > $P/deadline
for g in 0; do rm -f $P/gpu$g.end
  setsid bash -c "export CUDA_VISIBLE_DEVICES=$g; bash /tmp/repo/.gpu/chain_single.sh > $P/gpu$g.log 2>&1; date +%s > $P/gpu$g.end" < /dev/null > /dev/null 2>&1 &
done
sleep 15; cat $P/host.txt; tail -3 $P/pip.log
bash /tmp/repo/.gpu/wait1.sh ${2:-540}
