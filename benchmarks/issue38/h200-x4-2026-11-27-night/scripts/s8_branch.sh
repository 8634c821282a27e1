#!/bin/bash
# usage: s8_branch.sh EX CORES EXERCISE_ID PROBE_S : the branch's design probe, its reference 20 times, its GPU cases
# until 3 gradings each, then until 20 (all into the branch's own benchmarks/, copied back at the end)
EX=$1; C=$2; ID=$3; source /tmp/repo/.gpu/s8_lib.sh
cd /tmp/ex$EX; export PYTHONPATH=/tmp/site:/tmp/ex$EX
el probe; taskset -c $C timeout $(rem $4) python3 benchmarks/design/ex${EX}_transfer.py --device cuda --size full > $P/ex${EX}_probe.jsonl 2> $P/ex${EX}_probe.err; el "probe rc=$?"
taskset -c $C bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 700) --exercise $ID --part reference --runs 20 --out benchmarks" >> $P/ex${EX}_refs.log 2>&1; el refs
taskset -c $C bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 500) --exercise $ID --part cases --gpu-specific --until 3 --jobs 3 --out benchmarks" >> $P/ex${EX}_cases.log 2>&1; el cases3
taskset -c $C bash -c "source /tmp/repo/.gpu/s8_lib.sh; T0=$T0; gc \$(rem 2000) --exercise $ID --part cases --gpu-specific --until 20 --jobs 3 --out benchmarks" >> $P/ex${EX}_cases.log 2>&1; el cases20
rm -rf $P/ex${EX}_bench; cp -a benchmarks $P/ex${EX}_bench
