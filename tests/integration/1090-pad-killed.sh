#!/bin/bash
# A guest that kills its own launch pad, again and again, on a 2-node
# CilkLocal cluster: the node managers live on (their engine may ask
# about a worker the parent has already forgotten, and hears "gone"),
# and when the owner returns no process of the job is left.
# leaks: every program (the launch pad is what it tests)
# ports: 20440-20449
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20440
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=2 \
    -o stop_grace=2 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf

pid_of() { awk -v r="$1" -v a="$2" '$1 == r && index($3, a) == 1 { print $2 }' "$D/pids"; }
nodes_in() { "$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l; }
nodes_are() { test "$(nodes_in "$1")" -eq "$2"; }
MARK=cilknow-padkill-$$
workers() { shells "^sh -c .*$MARK"; }
NM2=$(pid_of node 127.0.0.2)
NM3=$(pid_of node 127.0.0.3)
both_live() {
	for p in $NM2 $NM3; do
		kill -0 "$p" 2>/dev/null || return 1
		# the engine too: the parent's one child
		[ -n "$(ps -o pid= --ppid "$p")" ] || return 1
	done
}
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"
both_live
ok $? "two node managers, each with its engine ($NM2 $NM3)"

# The worker's parent is its launch pad.
start run "$BIN/CilkRun" -- sh -c "kill -KILL \$PPID; sleep 1000; : $MARK"
RUN=$LAST_PID
# Starts by the parents' logs: a launch pad up ("worker W started
# (launch pad P)"), or one killed by its worker before it said so
# ("worker not started: ..."), which the engine never logs as started.
starts() {
	cat "$D"/nodes/*/log |
	    grep -Ec ': worker [^ ]+ started \(launch pad|: worker not started: '
}
# A launch pad that ends during its start is the node's fault for the
# job manager, which gives that node up for the job: a few starts each.
enough_starts() { [ "$(starts)" -ge 2 ]; }
wait_for 120 enough_starts
ok $? "the job's workers were started and killed their launch pads ($(starts) starts)"
# Each such worker's end reaches its job manager: a launch pad killed
# before it reported the worker started is the node's fault (both nodes
# given up for the job, "cannot run the job"); one killed after it ends
# its worker by SIGKILL, which the job manager takes for a stop by the
# node and runs the task again.  Which comes first is a race the
# machine's load decides (a SCHED_IDLE worker starts late on a busy one).
given_up() { [ "$(cat "$D"/nodes/*/log | grep -c 'cannot run the job')" -ge 2 ]; }
ends_heard() {
	[ "$(grep -c 'stopped by its node\|cannot run the job' "$T/run.out")" -ge 2 ]
}
wait_for 90 eval 'given_up || ends_heard'
ok $? "the job manager heard of the ends: nodes given up for the job, or tasks run again"
both_live
ok $? "both node managers and their engines live on"
! grep -q "malformed or unknown request" "$D"/nodes/*/log
ok $? "no engine was ended for asking about a worker"
# (after a few such failures the job manager gives a node up for the
# job: listed, not necessarily running it)
listed() { [ "$("$BIN/CilkNodes" | tail -n +2 | wc -l)" -eq 2 ]; }
wait_for 20 listed
ok $? "CilkNodes still lists both nodes"

# The owners return: nothing of the job may stay.
for h in 127.0.0.2 127.0.0.3; do
	echo idletime=0 >"$D/nodes/$h/sensors"
done
wait_for 30 nodes_are busy 2
ok $? "both nodes are busy (their owners are back)"
no_workers() { [ -z "$(workers)" ]; }
wait_for 30 no_workers
ok $? "no worker of the job is left (left: $(echo $(workers)))"
both_live
ok $? "and the node managers still run"
stop "$RUN"
finish
