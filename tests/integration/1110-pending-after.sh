#!/bin/bash
# CilkPs shows a job held by CilkRun --after (issue 28, pending
# reasons): on a CilkLocal cluster of two nodes, while job A runs, a
# CilkRun --after A is listed with no job number, REASON "after" and
# "--after A" for its command (--json: "job": null, "reason": "after");
# once A ends 0, the held job registers, runs, and the row is gone.
# ports: 20530-20534
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20530
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
ME=$(id -un)
PS=$BIN/CilkPs
ended() { ! kill -0 "$1" 2>/dev/null; }
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

start runa "$BIN/CilkRun" -t 60 --tasks 1 -- sh -c \
    "while [ ! -e '$T/go' ]; do sleep 0.1; done"
RUNA=$LAST_PID
wait_for 20 grep -q "job [0-9]* registered" "$T/runa.out"
ok $? "job A runs"
JA=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/runa.out" | head -1)
start runb "$BIN/CilkRun" -t 60 --after "$JA" -- sh -c 'echo after-ran'
RUNB=$LAST_PID
wait_for 10 grep -q "held until job $JA" "$T/runb.out"
ok $? "CilkRun --after $JA is held"
after_row() { "$PS" | awk -v a="--after $JA" '$1 == "-" && $8 == "after" && index($0, a) { f = 1 } END { exit !f }'; }
wait_for 10 after_row
ok $? "CilkPs lists it: no number, REASON after, --after $JA"
"$PS" >"$T/ps.out"
awk -v u="$ME" '$1 == "-" { exit !($2 == u && $4 == 0) }' "$T/ps.out"
ok $? "with its user and no nodes"
"$PS" --json >"$T/ps.json"
grep -q "{\"job\": null, \"user\": \"$ME\", [^}]*\"reason\": \"after\", \"command\": \"--after $JA\"}" "$T/ps.json"
ok $? "--json: job null, reason after"
"$PS" -u nobody >"$T/psn.out"
! grep -q "^ *- " "$T/psn.out"
ok $? "-u another user: not listed"
touch "$T/go"
wait_for 30 ended "$RUNA" && wait_for 30 ended "$RUNB"
ok $? "both end"
wait "$RUNB"
exit_is $? 0 "the held job ran and ended 0"
grep -q "after-ran" "$T/runb.out"
ok $? "its program ran"
! after_row
ok $? "CilkPs no longer lists it as waiting"
if [ "$TAP_FAILED" -ne 0 ]; then
	sed 's/^/# ps: /' "$T/ps.out"
	sed 's/^/# json: /' "$T/ps.json"
fi
finish
