#!/bin/bash
# A node manager restarted in the middle of what it was doing to a
# worker (CilkNodeManager(8), PRIVILEGES and FILES):
#  1. its engine decided a stop (the job was ended: CilkKill) and ended
#     before the parent acted on it: the parent, its engine gone, still
#     stops the worker, so nothing runs on with no node manager to
#     police it (the stop came in the same poll as the engine's SIGCHLD,
#     which is read first).  Not the owner's return: the parent is the
#     one that measures it, and it is held;
#  2. a launch pad that does not answer the restarted node manager (it
#     is stopped) is asked again; one that answers then is adopted;
#  3. one that stays silent is ended with its worker, and its folder
#     removed: no worker runs that no node manager polices; its task
#     runs again.
# The restarted node manager registers once every launch pad has
# answered or been ended, so the broker gives it no second worker for
# a processor whose worker it has not heard of yet.
# The parent is held with SIGSTOP while its engine decides and ends, so
# that both reach it in one poll, as a busy machine's restart does.
# ports: 20630-20639
. "$(dirname "$0")/lib.sh"
unset CILKNOW_OWNER_RETURN
export CILKNOW_SBIN=$SBIN
D=$T/cluster
PORT=20630
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=2 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '[ -n "${HELD:-}" ] && kill -CONT $HELD 2>/dev/null
    "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
NLOG=$D/nodes/127.0.0.2/log
NSTATE=$D/nodes/127.0.0.2/state
NRUN=$D/nodes/127.0.0.2/run
SENSORS=$D/nodes/127.0.0.2/sensors
cd "$T" || exit 1
node_is() {
	test "$("$BIN/CilkNodes" | awk '$2 == "127.0.0.2" { print $3 }')" = "$1"
}
gone() { ! kill -0 "$1" 2>/dev/null; }
# The node manager's parent: the pid CilkLocal recorded, or ours.
NM=$(awk '$1 == "node" && $3 == "127.0.0.2:'$((PORT + 1))'" { print $2 }' \
    "$D/pids")
restart_nm() {
	"$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
	    -o listen=127.0.0.2:$((PORT + 1)) -o state_dir="$NSTATE" \
	    -o run_dir="$NRUN" -o sensors=file:"$SENSORS" >>"$NLOG" 2>&1 &
	NM=$!
	PIDS="$PIDS $NM"
}
# job NAME : a job whose worker prints its pid, then sleeps
job() {
	start "$1" "$BIN/CilkRun" -- sh -c 'echo "up $$"; exec sleep 300'
	RUN=$LAST_PID
	wait_for 30 grep -q 'up [0-9]' "$T/$1.out" || return 1
	WPID=$(grep -o 'up [0-9]*' "$T/$1.out" | tail -1 | cut -d' ' -f2)
	W=$(sed -n 's/.*: worker \([^ ]*\) started (launch pad .*/\1/p' \
	    "$NLOG" | tail -1)
	LPAD=$(sed -n "s/.*worker $W started (launch pad \\([0-9]*\\).*/\\1/p" \
	    "$NLOG" | tail -1)
	[ -n "$WPID" ] && [ -n "$W" ] && [ -n "$LPAD" ] && kill -0 "$WPID" &&
	    kill -0 "$LPAD"
}
wait_for 15 node_is idle
ok $? "the node is lent"
cp "$SENSORS" "$T/sensors.away"

# ---- 1. the engine's last stop ------------------------------------------
job one
ok $? "a job runs: worker $W (pid $WPID), launch pad $LPAD"
ENGINE=$(engine_of "$NM")
[ -n "$ENGINE" ]
ok $? "the node manager: parent $NM, engine $ENGINE"
kill -STOP "$NM" && HELD=$NM
JOB=$(sed -n "s/.*job \([0-9]*\) task [0-9]*: worker $W started.*/\1/p" \
    "$NLOG" | tail -1)
"$BIN/CilkKill" "$JOB" >"$T/kill.out" 2>&1
wait_for 15 grep -q "stopping worker $W: " "$NLOG"
ok $? "job ${JOB:-?} ended: the engine decides to stop $W (its parent held)"
kill -TERM "$ENGINE"
wait_for 15 pid_ended "$ENGINE"	# a zombie: its parent is held
ok $? "the engine ends (SIGTERM) before its parent has read the stop"
kill -CONT "$NM" && HELD=
wait_for 15 gone "$NM"
ok $? "the parent, its engine gone, exits"
contains "$NLOG" "after the engine's end: (VACATE|STOP) of worker $W" \
    "it did what the engine had decided first"
wait_for 15 gone "$WPID"
ok $? "the worker is stopped with no node manager running"
kill -0 "$LPAD"
ok $? "its launch pad keeps its exit for the next node manager"
stop "$RUN"
cp "$T/sensors.away" "$SENSORS"
restart_nm
wait_for 15 grep -q "adopted worker $W of job [0-9]* on .* (exited)" "$NLOG"
ok $? "the restarted node manager adopts the stopped worker"
wait_for 20 gone "$LPAD"
ok $? "its launch pad exits once the exit is dealt with"
[ ! -e "$NSTATE/workers/$W" ]
ok $? "and its folder is removed"
wait_for 15 node_is idle
ok $? "the node is lent again"

# ---- 2. a launch pad silent at adoption, then answering -----------------
job two
ok $? "a job runs: worker $W (pid $WPID), launch pad $LPAD"
kill -STOP "$LPAD" && HELD=$LPAD
kill -TERM "$NM"
wait_for 15 gone "$NM"
ok $? "the node manager stops; the launch pad is held (SIGSTOP)"
restart_nm
wait_for 20 grep -q "adopt $W: its launch pad did not answer (.*); asking again" \
    "$NLOG"
ok $? "the restarted node manager: no answer from $W's launch pad; it asks again"
kill -CONT "$LPAD" && HELD=
wait_for 15 grep -q "adopted worker $W of job [0-9]* (running) at its second asking" \
    "$NLOG"
ok $? "the launch pad answers and $W is adopted"
wait_for 15 grep -q "adopted worker $W of job [0-9]* on " "$NLOG"
ok $? "the engine adopts it too"
kill -0 "$WPID" && kill -0 "$LPAD"
ok $? "the worker runs on"
stop "$RUN"
wait_for 15 gone "$WPID"
ok $? "and stops when its job ends"
wait_for 15 node_is idle
ok $? "the node is idle again"

# ---- 3. a launch pad that stays silent ------------------------------------
job three
ok $? "a job runs: worker $W (pid $WPID), launch pad $LPAD"
kill -STOP "$LPAD" && HELD=$LPAD
kill -TERM "$NM"
wait_for 15 gone "$NM"
ok $? "the node manager stops; the launch pad is held"
restart_nm
wait_for 20 grep -q "adopt $W: its launch pad did not answer" "$NLOG"
ok $? "the restarted node manager: no answer from $W's launch pad"
wait_for 30 gone "$WPID"
ok $? "silent again: the worker is ended"
wait_for 10 gone "$LPAD"
ok $? "its launch pad too (its pid from its socket)" && HELD=
[ ! -e "$NSTATE/workers/$W" ]
ok $? "and its folder removed"
contains "$NLOG" "worker $W: launch pad $LPAD killed" "the node manager says so"
! grep -q "adopted worker $W" "$NLOG"
ok $? "$W was never adopted"
ups() { test "$(grep -c 'up [0-9]' "$T/three.out")" -ge 2; }
wait_for 30 ups
ok $? "the node stays lent, and the task runs there again"
stop "$RUN"
finish
