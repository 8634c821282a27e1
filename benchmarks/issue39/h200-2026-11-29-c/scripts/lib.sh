# sourced by the chains: rem N prints min(N, seconds left before DEADLINE - 8); el prints time since chain start
P=/tmp/persist; T0=$(date +%s); el() { echo "$(( $(date +%s) - T0 )) s: $*"; }
rem() { local r=$(( DEADLINE - $(date +%s) - 8 )); [ $r -gt $1 ] && r=$1; [ $r -lt 1 ] && r=1; echo $r; }
gc() { local t=$1; shift; [ $t -lt 60 ] && { el "skip (t=$t): $*"; return; }; timeout $t python3 -m autograder.tools.gpu_check --deadline $((t-30)) "$@"; el "gpu_check rc=$? $*"; }
