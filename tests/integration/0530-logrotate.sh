#!/bin/bash
# A worker's log rotated under it (logrotate's copytruncate, as
# conf/logrotate.d/cilknow does) and the daemons sent SIGHUP: the worker
# runs on, what it writes afterwards still reaches the job's owner, and
# the node manager says what happened.
# ports: 17540-17549
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
"$BIN/CilkLocal" start -n 1 -d "$D" -p 17540 -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
idle() { test "$("$BIN/CilkNodes" -s idle | tail -n +2 | wc -l)" -eq 1; }
wait_for 15 idle
ok $? "one idle node"

# 20 long lines, then (once the test says so) 3 short ones: after the
# truncation the log stays shorter than the offset already relayed.
GO=$T/go
start run "$BIN/CilkRun" --tasks 1 -- sh -c '
	i=0
	while [ $i -lt 20 ]; do
		i=$((i + 1))
		echo "before rotation, line $i, padded to be long enough"
	done
	n=0
	while [ ! -e "$1" ] && [ $n -lt 300 ]; do n=$((n + 1)); sleep 0.1; done
	for i in 1 2 3; do echo "after $i"; done' sh "$GO"
RUN=$LAST_PID
relayed() { grep -q "before rotation, line 20," "$T/run.out"; }
wait_for 15 relayed
ok $? "the first 20 lines reached CilkRun"

# SIGHUP (logrotate's postrotate, or an administrator) reloads the
# daemons without touching the running worker.
# (its go file is this test's own: another suite's 0530 is not ours)
WORKER=$(shells "^sh -c.*padded to be long enough.* $GO\$")
[ -n "$WORKER" ]
ok $? "the worker runs (pid $WORKER)"
for p in $(awk '$1 == "node" || $1 == "broker" { print $2 }' "$D/pids"); do
	kill -HUP "$p"
done
reloaded() { grep -q "reloaded the configuration" "$D/nodes/127.0.0.2/log"; }
wait_for 10 reloaded
ok $? "the node manager reloaded its configuration on SIGHUP"
kill -0 "$WORKER" 2>/dev/null
ok $? "and the worker still runs"

LOG=$(ls "$D"/nodes/127.0.0.2/state/workers/*/out.log 2>/dev/null | head -n 1)
[ -f "$LOG" ]
ok $? "the worker's out.log exists ($LOG)"
cp "$LOG" "$LOG.1" && truncate -s 0 "$LOG"
ok $? "copytruncate: copied and emptied"
touch "$GO"

ended() { ! kill -0 "$RUN" 2>/dev/null; }
wait_for 20 ended
ok $? "the job ends by itself"
wait "$RUN"
exit_is $? 0 "CilkRun"
for i in 1 2 3; do
	contains "$T/run.out" "^\[127\.0\.0\.2\] after $i$" \
	    "line $i written after the rotation reached CilkRun"
done
contains "$D/nodes/127.0.0.2/log" "log was truncated \(rotated\)" \
    "the node manager logs the rotation"
finish
