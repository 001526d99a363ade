#!/bin/bash
# The life of a job on a 4-node CilkLocal cluster, over real UDP: it is
# spread over every idle node, its output comes back, an owner's return
# takes a node back, Ctrl-C ends it everywhere, --tasks and -t end it.
# ports: 17450-17459
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17450
"$BIN/CilkLocal" start -n 4 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4"
# CilkLocal's daemons are ours to clean up, whatever happens.
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf

nodes_in() {	# nodes_in STATE : how many nodes CilkNodes shows in STATE
	"$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l
}
nodes_are() { test "$(nodes_in "$1")" -eq "$2"; }
# Workers are "sh -c ... MARK" processes; the sh stays (no exec).
MARK=cilknow-test-$$
workers() { shells "^sh -c .*$MARK" | sort; }
workers_are() { test "$(workers | wc -l)" -eq "$1"; }
hellos_are() { test "$(grep -c 'hello from' "$T/run1.out")" -eq "$1"; }
wait_for 15 nodes_are idle 4
ok $? "CilkNodes shows 4 idle nodes"
"$BIN/CilkNodes" >"$T/nodes0.out"
contains "$T/nodes0.out" '^ *NODE +HOST +STATE +SLOTS +JOB +LOAD +IDLE +USERS +SEEN$' \
    "CilkNodes prints the columns of DESIGN.md"

start run1 "$BIN/CilkRun" -- sh -c \
    "echo hello from \$CILKNOW_NODE task \$CILKNOW_TASK; sleep 60; : $MARK"
RUN1=$LAST_PID
wait_for 20 nodes_are running 4
ok $? "the job runs on all 4 nodes"
"$BIN/CilkPs" >"$T/ps1.out"
contains "$T/ps1.out" "^ *1 +$(id -un) +127\.0\.0\.1 +4 +- +1 +[0-9hms]+ +- +sh -c echo hello" \
    "CilkPs shows job 1 with 4 nodes"
wait_for 10 hellos_are 4
ok $? "4 workers' output reached CilkRun"
contains "$T/run1.out" '^\[127\.0\.0\.3\] hello from 127\.0\.0\.3 task [0-3]$' \
    "output is prefixed with the node's name"
workers_are 4
ok $? "4 worker processes exist"

# The owner of 127.0.0.3 comes back.
echo idletime=0 >"$D/nodes/127.0.0.3/sensors"
wait_for 10 sh -c "'$BIN/CilkNodes' | grep -Eq '127\.0\.0\.3 +busy'"
ok $? "the node whose owner returned is busy"
wait_for 10 workers_are 3
ok $? "and its worker is gone"
"$BIN/CilkPs" >"$T/ps2.out"
contains "$T/ps2.out" "^ *1 +$(id -un) +127\.0\.0\.1 +3 " "CilkPs shows 3 nodes"

kill -INT "$RUN1"
wait "$RUN1"
exit_is $? 130 "Ctrl-C ends CilkRun"
wait_for 10 workers_are 0
ok $? "every worker is stopped"
wait_for 10 sh -c "test \$('$BIN/CilkPs' | wc -l) -eq 1"
ok $? "the job left CilkPs"
wait_for 10 nodes_are idle 3
ok $? "the nodes are idle again"

# Without --tasks every recruited node runs the program once.
echo idletime=1000000 >"$D/nodes/127.0.0.3/sensors"
wait_for 10 nodes_are idle 4
timeout 60 "$BIN/CilkRun" -- sh -c 'echo I am $CILKNOW_NODE' >"$T/once.out" 2>&1
exit_is $? 0 "a job whose instances all exit 0 ends by itself with 0"
[ "$(grep -c '^\[127\.0\.0\.[2-5]\] I am 127\.0\.0\.[2-5]$' "$T/once.out")" -eq 4 ]
ok $? "one instance ran on each of the 4 nodes"
[ "$TAP_FAILED" -gt 0 ] && sed "s/^/#   /" "$T/once.out"
timeout 60 "$BIN/CilkRun" -- sh -c 'exit 3' >/dev/null 2>&1
exit_is $? 1 "a job whose instances fail ends with 1"

# --tasks: 6 instances, each exits 0.
echo idletime=1000000 >"$D/nodes/127.0.0.3/sensors"
timeout 60 "$BIN/CilkRun" --tasks 6 -- sh -c 'echo task $CILKNOW_TASK done' \
    >"$T/tasks.out" 2>&1
exit_is $? 0 "CilkRun --tasks 6 ends when 6 instances exited 0"
[ "$(grep -c ' done$' "$T/tasks.out")" -ge 6 ]
ok $? "at least 6 instances ran"

# -t: the job ends after its time limit.
s=$(date +%s)
timeout 60 "$BIN/CilkRun" -t 2 -- sleep 60 >/dev/null 2>&1
exit_is $? 124 "CilkRun -t 2 ends with 124"
[ $(( $(date +%s) - s )) -lt 15 ]
ok $? "within 15 s"
wait_for 10 nodes_are running 0
ok $? "no node runs anything afterwards"

"$BIN/CilkLocal" stop -d "$D" >"$T/stop.out" 2>&1
exit_is $? 0 "CilkLocal stop"
workers_are 0 && ! pgrep -f "$D" >/dev/null
ok $? "nothing is left running"
finish
