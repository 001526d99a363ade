#!/bin/bash
# A launch pad the node manager has forgotten (its worker's output is
# relayed) is still the parent's until it ends: the parent is the
# subreaper of its launch pads and ends every child it does not know
# (end_orphans, at each SIGCHLD), and it once forgot the launch pad at
# once, so one still removing its worker's folder was killed half way
# and the folder stayed (1040's "no task folder is left", on a busy
# machine).  Here a task leaves 30,000 files in its folder, so that
# the removal takes a while, and the parent gets a SIGCHLD every 10 ms
# the whole time (what other launch pads' ends would give it):
#  1. the job ends 0, its output staged back;
#  2. its worker's folder is gone from the node;
#  3. the parent ended no launch pad as an orphan.
# Needs root (SIGCHLD to a root daemon).
# ports: 17440-17449
. "$(dirname "$0")/lib.sh"
root_or_skip
export CILKNOW_SBIN=$SBIN
D=$T/cluster
PORT=17440
# (The task's 30,000 files take CPU: beside make check's other tests
# it needs a fair share, not SCHED_IDLE's.)
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 $BUSY_MACHINE_WORKERS >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
NLOG=$D/nodes/127.0.0.2/log
NM=$(awk '$1 == "node" && index($3, "127.0.0.2") == 1 { print $2 }' \
    "$D/pids")
[ -n "$NM" ] && kill -0 "$NM"
ok $? "the node manager's parent is pid $NM"
node_is() {
	test "$("$BIN/CilkNodes" | awk '$2 == "127.0.0.2" { print $3 }')" = "$1"
}
wait_for 15 node_is idle
ok $? "the node is lent"

# SIGCHLD to the parent every 10 ms until told to stop; at most 9,000.
S=$T/submit
mkdir -p "$S" && cd "$S" || exit 1
(
	for _ in $(seq 9000); do
		[ -e "$T/pump.stop" ] && break
		kill -CHLD "$NM" 2>/dev/null || break
		nap 0.01
	done
) &
PUMP=$!
PIDS="$PIDS $PUMP"

"$BIN/CilkRun" -t 180 --stage-out out.txt -- sh -c \
    'mkdir many && cd many && seq 1 30000 | xargs touch && cd .. &&
     ls many | wc -l >out.txt' >"$T/r.out" 2>"$T/r.err"
exit_is $? 0 "a job whose task leaves 30,000 files ends 0"
J=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/r.err" | head -1)
[ "$(cat "j$J.t0/out.txt" 2>/dev/null)" = 30000 ]
ok $? "its output came back (j$J.t0/out.txt: 30000)"

no_worker_dirs() { ! ls -d "$D"/nodes/*/state/workers/j* >/dev/null 2>&1; }
wait_for 30 no_worker_dirs
ok $? "its worker's folder is gone from the node"
: >"$T/pump.stop"
wait "$PUMP"
if ! no_worker_dirs; then
	ls -d "$D"/nodes/*/state/workers/j* | sed 's/^/#   left: /'
	grep -E "j$J-|job $J[: ]|orphan|launch pad had died" "$NLOG" |
	    tail -n 20 | cut -c 12-200 | sed 's/^/#     /'
fi
! grep -q "whose launch pad had died" "$NLOG"
ok $? "the parent ended no launch pad as an orphan"
grep "whose launch pad had died" "$NLOG" | cut -c 12-200 | sed 's/^/#   /'

finish
