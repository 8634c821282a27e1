#!/bin/bash
# issue 38 item 5: 02's max-autotune training step graded from cold caches, its limit what is left (up to 1800 s)
source /tmp/repo/.gpu/s8_lib.sh; cd /tmp/repo; export PYTHONPATH=/tmp/site:/tmp/repo PERSIST=$P
t=$(rem 1800); el "ma limit $t"; taskset -c 48-63 timeout $((t+5)) python3 .gpu/ma_grade.py $((t-10)) > $P/ma_grade.log 2>&1; el "ma rc=$?"
