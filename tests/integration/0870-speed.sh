#!/bin/bash
# An idle node manager sleeps, and a worker's exit goes to its job
# manager when the launch pad reports it, not at a later tick
# (CilkNodeManager(8), "Wakeups"):
#  1. an idle node (no worker): its privileged parent and its engine
#     each wake at most a few times in 5 s (their own deadlines: sensors
#     every 5 s, the pairing quantum); a 0.2 s tick would be 25 or more;
#  2. a job of one task: the engine reads the worker's exit from the
#     parent, logs it and sends it to the job manager before it polls
#     again (strace), where a tick would have polled first;
#  3. the job ends 0, and the node is idle again;
#  4. the job manager listened on the address it registers from, not
#     on 0.0.0.0.
# Structural checks only: how fast the job ends is in make bench
# (tests/bench/jobend.sh).
# ports: 19100-19119
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19100
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 1
ok $? "1 idle node"

# The node's parent (CilkLocal's pids file) and its engine, its child.
parent=$(awk '$1 == "node" { print $2 }' "$D/pids")
engine=$(pgrep -P "$parent" CilkNodeManager | head -1)
[ -n "$parent" ] && [ -n "$engine" ]
ok $? "the node manager's parent ($parent) and engine (${engine:-none})"

# 1. Wakeups of an idle node manager: voluntary context switches, each a
# return from poll, over 5 s.
wakeups() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }
p0=$(wakeups "$parent"); e0=$(wakeups "$engine")
sleep 5
p1=$(wakeups "$parent"); e1=$(wakeups "$engine")
# The bounds are half a 0.2 s tick's 25: the daemons' own deadlines
# (registration, its answer, sensors, the quantum) fall 1 or 2 times in
# a window each, as they happen to line up (a CI run counted 7 for the
# engine).
[ $((p1 - p0)) -le 8 ]
ok $? "an idle node's parent woke $((p1 - p0)) times in 5 s (at most 8)"
[ $((e1 - e0)) -le 12 ]
ok $? "an idle node's engine woke $((e1 - e0)) times in 5 s (at most 12)"

# 2. The exit, relayed in the event that brought it.
cd "$T" || exit 1
if command -v strace >/dev/null; then
	strace -tt -s 200 -p "$engine" -o "$T/engine.strace" \
	    -e trace=poll,ppoll,sendto,sendmsg,write 2>/dev/null &
	SP=$!
	PIDS="$PIDS $SP"
	wait_for 10 grep -q . "$T/engine.strace"
	"$BIN/CilkRun" -v -t 60 --tasks 1 -- true >"$T/run.out" 2>"$T/run.err"
	exit_is $? 0 "CilkRun --tasks 1 -- true ends 0"
	stop "$SP"
	# After the log line of the exit: a datagram to the job manager (not
	# to the broker) before the engine's next poll.
	awk -v broker="htons($PORT)" '
		/write\(2, .*worker .* exited 0/ { seen = 1; next }
		seen && /poll\(/ { exit }
		seen && /sendto\(/ && index($0, broker) == 0 { relayed = 1; exit }
		END { exit !relayed }' "$T/engine.strace"
	ok $? "the exit was sent to the job manager before the engine polled again"
	if [ "$TAP_FAILED" -ne 0 ]; then
		grep -A8 'exited 0' "$T/engine.strace" | cut -c1-160 |
		    sed 's/^/#   | /'
	fi
else
	echo "ok $((TAP_N + 1)) # SKIP strace is not installed"
	TAP_N=$((TAP_N + 1))
	"$BIN/CilkRun" -v -t 60 --tasks 1 -- true >"$T/run.out" 2>"$T/run.err"
	exit_is $? 0 "CilkRun --tasks 1 -- true ends 0"
fi
contains "$T/run.err" "task 0 on [0-9.]+ exited 0$" "the job manager heard the exit"
# 4. It listened on the address it registered from (the route to the
# broker at 127.0.0.1), not on every address (CilkJobManager(8)).
contains "$T/run.err" "listening on 127\.0\.0\.1:[0-9]+$" \
    "the job manager listened on 127.0.0.1, where it registers from"
wait_for 15 nodes_are idle 1
ok $? "the node is idle again"
finish
