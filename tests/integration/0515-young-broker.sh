#!/bin/bash
# A job that ends soon after a broker restart: its workers stop at once.
# A young broker's push may lack a job only because its job manager has
# not registered again yet, so nodes wait until the broker is three
# register intervals old before they take a missing job for ended
# (CilkNodeManager(8)).  A job that is unregistered (its CilkRun ends)
# or ended with CilkKill is named to its nodes (JOB_GONE) and must not
# wait for that.  With a 15 s interval the wait would be 45 s; the
# bounded waits below end long before it.
# ports: 19300-19319
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19300
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=15 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2, register_interval=15"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf

nodes_are() {	# nodes_are STATE N
	test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"
}
pid_of() { awk -v r="$1" -v a="$2" '$1 == r && index($3, a) == 1 { print $2 }' "$D/pids"; }
MARK=cilknow-young-$$
workers() { shells "^sh -c .*$MARK-$1\$" | sort; }
workers_are() { test "$(workers "$1" | wc -l)" -eq "$2"; }
listed() { "$BIN/CilkPs" | grep -q "$MARK-$1"; }
# restart_broker : SIGKILL the broker, start it again, wait until the
# job NAME ($1) and both its nodes are back in its lists.
restart_broker() {
	kill -KILL "$BROKER"
	"$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" -o run_dir="$D/broker" \
	    >>"$T/broker2.log" 2>&1 &
	BROKER=$!
	PIDS="$PIDS $BROKER"
	wait_for 40 listed "$1" && wait_for 40 nodes_are running 2
}
BROKER=$(pid_of broker 127.0.0.1)
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

# 1. CilkRun ends (Ctrl-C): the job manager unregisters the job.
start run-a "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-a"
RUNA=$LAST_PID
wait_for 20 workers_are a 2
ok $? "job a runs a worker on each node"
before=$(workers a)
# JOB_GONE from a node (it holds the cluster key, but is not the broker)
# stops nothing.
for n in 127.0.0.2 127.0.0.3; do
	"$TOOLS/fake_node" -c "$D/cilknow.conf" -a 127.0.0.9 -b "$n:$((PORT + 1))" \
	    -W 0.5 gone 1 >/dev/null 2>&1
done
sleep 2		# nothing to poll for: long enough for a wrong stop to begin
[ "$(workers a)" = "$before" ]
ok $? "a JOB_GONE from anyone but the broker stops no worker"
restart_broker a
ok $? "after a broker restart, job a and its 2 nodes are listed again"
[ "$(workers a)" = "$before" ]
ok $? "the broker's restart stopped no worker"
kill -INT "$RUNA"
wait_for 10 workers_are a 0
ok $? "CilkRun ends: both workers stop while the broker is young"
# no_pads : no launch pad listens on either node (each is let go once
# its node manager drops the worker: nobody waits for its output now)
no_pads() {
	for n in 127.0.0.2 127.0.0.3; do
		"$TOOLS/lpad_driver" list "$D/nodes/$n/run" | grep -qx 'live 0' ||
		    return 1
	done
}
wait_for 10 no_pads
ok $? "and their launch pads are let go"
wait "$RUNA" 2>/dev/null
grep -h "job 1: stopping worker .*: the job ended" "$D"/nodes/*/log \
    >"$T/stops-a" 2>/dev/null
test "$(wc -l <"$T/stops-a")" -eq 2
ok $? "each node manager logs that the job ended"

# 2. CilkKill ends a job: the same.
start run-b "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-b"
RUNB=$LAST_PID
wait_for 20 workers_are b 2
ok $? "job b runs a worker on each node"
restart_broker b
ok $? "after another broker restart, job b and its 2 nodes are listed"
job=$("$BIN/CilkPs" | awk -v m="$MARK-b" 'index($0, m) { print $1 }')
"$BIN/CilkKill" "$job" >"$T/kill.out" 2>&1
exit_is $? 0 "CilkKill $job"
wait_for 10 workers_are b 0
ok $? "both workers of the killed job stop while the broker is young"
wait_for 10 sh -c "! kill -0 $RUNB"
ok $? "its CilkRun exits"

# 3. The same message from the broker's own address is heeded (what the
# check of the sender above refuses is the sender, not the message):
# with the broker stopped, a JOB_GONE from its address and port.
start run-c "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-c"
RUNC=$LAST_PID
wait_for 20 workers_are c 2
ok $? "job c runs a worker on each node"
job=$("$BIN/CilkPs" | awk -v m="$MARK-c" 'index($0, m) { print $1 }')
kill -KILL "$BROKER"
wait "$BROKER" 2>/dev/null
"$TOOLS/fake_node" -c "$D/cilknow.conf" -a "127.0.0.1:$PORT" \
    -b "127.0.0.2:$((PORT + 1))" -W 0.5 gone "$job" >/dev/null 2>&1
wait_for 10 workers_are c 1
ok $? "a JOB_GONE from the broker's address stops that node's worker"
kill -INT "$RUNC"
finish
