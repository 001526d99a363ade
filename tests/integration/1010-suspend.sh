#!/bin/bash
# Suspend instead of vacate (CilkRun --owner-return=suspend=SECONDS) on
# a CilkLocal cluster where only 127.0.0.2 is lent:
#  1. the owner returns: the worker is frozen (CilkNodes: suspended, the
#     kernel: frozen 1, no CPU used, no output, its processes still
#     there); the owner leaves again in time: it goes on (running, new
#     ticks) and the job ends with the right answer, CilkRun exit 0;
#  2. the owner stays past SECONDS: the worker is stopped, nothing left;
#  3. no flag (vacate): the worker is stopped at once, never suspended;
#  4. a node with allow_suspend=no (a second cluster) vacates anyway.
# Needs root (workers run as the system's "daemon") and the service
# user cilknow, as 1000 does.
# ports: 17900-17939
. "$(dirname "$0")/lib.sh"
# The jobs run as other users, who may not reach the build tree (a
# clone in /root is 0700): they run a copy in the test's folder.
HOSTILE=$T/hostile
cp "$TOOLS/hostile" "$HOSTILE" && chmod 755 "$HOSTILE" ||
    { echo "Bail out! cannot copy $TOOLS/hostile"; exit 1; }
root_or_skip
unset CILKNOW_OWNER_RETURN
export CILKNOW_SBIN=$SBIN
D=$T/cluster
D2=$T/nosuspend
PORT=17900
PORT2=17920
# Guests at nice 0 (BUSY_MACHINE_WORKERS): 60 ticks of an idle-class
# worker took more than the 30 s allowed beside make check's busiest
# minutes; freezing and stopping are the same at any priority.
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 $BUSY_MACHINE_WORKERS >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1;
    "$BIN/CilkLocal" stop -d "$D2" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
# Only 127.0.0.2 is lent: every job runs there.
echo idletime=0 >"$D/nodes/127.0.0.3/sensors"

# The cluster the helpers below look at: its folder, node log, cgroups.
use() {	# use DIR
	C=$1
	LOG=$C/nodes/127.0.0.2/log
	export CILKNOW_CONF=$C/cilknow.conf
	wait_for 10 grep -q "workers: " "$LOG"
	MECH=$(grep -m1 -o "workers: .*" "$LOG")
	CGBASE=
	case "$MECH" in
	*"cgroup v2 at "*)
		CGBASE=$(echo "$MECH" | sed -E 's/.*cgroup v2 at ([^ ]+).*/\1/') ;;
	esac
}
owner_back() { echo idletime=0 >"$C/nodes/127.0.0.2/sensors"; }
owner_away() { echo idletime=1000000 >"$C/nodes/127.0.0.2/sensors"; }
state_of() { "$BIN/CilkNodes" | awk '$2 == "127.0.0.2" { print $3 }'; }
node_is() { test "$(state_of)" = "$1"; }
use "$D"
echo "# $MECH"
wait_for 15 node_is idle
ok $? "the node is lent"
# Until the broker knows 127.0.0.3 busy it would hand it the job too.
wait_for 15 sh -c "'$BIN/CilkNodes' | grep -Eq '127\.0\.0\.3 +busy '"
ok $? "the other node is its owner's"

# The job runs as ALICE; the worker's processes, as the kernel sees them.
ALICE=daemon
"$BIN/CilkKey" generate-user -u $ALICE "$T/$ALICE.id" >/dev/null &&
    "$BIN/CilkKey" public "$T/$ALICE.id" >"$D/users/$ALICE.pub" &&
    chmod 644 "$D/users/$ALICE.pub" && reload_local "$D"
ok $? "$ALICE's key installed, the daemons reloaded"
mkdir "$T/work" && chmod 777 "$T/work"
cd "$T/work" || exit 1
as_alice() {	# as_alice NAME CMD... : a job of ALICE's, in the background
	name=$1; shift
	start "$name" "$BIN/CilkRun" -o user_key="$T/$ALICE.id" "$@"
}
worker_pids() {
	if [ -n "$CGBASE" ]; then
		cat "$CGBASE"/w-*/cgroup.procs 2>/dev/null
	else
		pgrep -u $ALICE
	fi
}
none_left() { test -z "$(worker_pids)"; }
# Frozen: the kernel's word (cgroup.events), or every process stopped.
frozen() {
	if [ -n "$CGBASE" ]; then
		grep -qx "frozen 1" "$CGBASE"/w-*/cgroup.events
	else
		p=$(worker_pids)
		[ -n "$p" ] && ! for q in $p; do
			sed -E 's/^[0-9]+ \(.*\) //' /proc/"$q"/stat 2>/dev/null
		done | grep -qv '^T'
	fi
}
thawed() {
	if [ -n "$CGBASE" ]; then
		grep -qx "frozen 0" "$CGBASE"/w-*/cgroup.events
	else
		p=$(worker_pids)
		[ -n "$p" ] && for q in $p; do
			sed -E 's/^[0-9]+ \(.*\) //' /proc/"$q"/stat 2>/dev/null
		done | grep -qv '^T'
	fi
}
# CPU time the worker's processes used, in microseconds.
cpu_usec() {
	if [ -n "$CGBASE" ]; then
		awk '$1 == "usage_usec" { s += $2 } END { print s + 0 }' \
		    "$CGBASE"/w-*/cpu.stat 2>/dev/null
	else
		for q in $(worker_pids); do
			sed -E 's/^[0-9]+ \(.*\) //' /proc/"$q"/stat 2>/dev/null
		done | awk -v hz="$(getconf CLK_TCK)" \
		    '{ s += $12 + $13 } END { print int(s * 1000000 / hz) }'
	fi
}
# The worker's stdout as its launch pad writes it, and the last tick.
out_log() { cat "$C"/nodes/127.0.0.2/state/workers/j*/out.log 2>/dev/null; }
last_tick() { out_log | sed -nE 's/^tick ([0-9]+)$/\1/p' | tail -n 1; }
ticked_past() { test "$(last_tick)" -gt "$1" 2>/dev/null; }
ended() { ! kill -0 "$1" 2>/dev/null; }
# Seconds since the epoch, to the millisecond.
now() { date +%s.%3N; }
# Polls the node's state until it is $1, noting every state seen in FILE.
states_until() {	# states_until STATE SECONDS FILE
	end=$(( $(date +%s%N) + $2 * 1000000000 ))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		s=$(state_of)
		echo "$s" >>"$3"
		[ "$s" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# 1. suspend=30: the owner returns after a few ticks and leaves again.
# 60 ticks of 0.1 s and a known last line; a spinner burns CPU meanwhile
# (HOSTILE_ALARM travels in the job's environment).
export HOSTILE_ALARM=60
as_alice sus --owner-return=suspend=30 -- sh -c "'$HOSTILE' spin \
    >/dev/null & s=\$!; i=0; while [ \$i -lt 60 ]; do i=\$((i+1)); \
    sleep 0.1; echo tick \$i; done; kill \$s; echo done \$i"
SUS=$LAST_PID
wait_for 20 ticked_past 5
ok $? "a job with --owner-return=suspend=30 runs and ticks"
# On a busy machine the spinner may wait for its share.
spun() { [ "$(cpu_usec)" -ge 20000 ]; }
wait_for 3 spun
owner_back
wait_for 5 grep -q "worker .* suspended for at most 30 s" "$LOG"
ok $? "the owner returns: the node manager suspends the worker"
wait_for 10 node_is suspended
ok $? "CilkNodes shows the node suspended"
wait_for 5 frozen
ok $? "the kernel reports the worker frozen"
PIDS_BEFORE=$(worker_pids | sort)
cpu1=$(cpu_usec)
[ "$cpu1" -ge 20000 ]
ok $? "the spinner used CPU while it ran ($((cpu1 / 1000)) ms)"
tick1=$(last_tick)
sleep 1	# a measure over time: nothing to poll for
cpu2=$(cpu_usec)
[ $((cpu2 - cpu1)) -lt 5000 ]
ok $? "frozen, it uses no CPU over 1 s ($((cpu2 - cpu1)) us)"
[ "$(last_tick)" = "$tick1" ] && [ "${tick1:-0}" -lt 60 ]
ok $? "and prints no new tick (still at ${tick1:-none})"
alive() { for p in "$@"; do kill -0 "$p" || return 1; done; }
[ -n "$PIDS_BEFORE" ] && [ "$(worker_pids | sort)" = "$PIDS_BEFORE" ] &&
    alive $PIDS_BEFORE
ok $? "its processes are still there ($(echo $PIDS_BEFORE))"
node_is suspended
ok $? "still suspended"
owner_away
wait_for 5 grep -q "worker .* resumed" "$LOG"
ok $? "the owner leaves within 30 s: the worker is resumed"
wait_for 5 thawed
ok $? "the kernel thaws it"
wait_for 10 node_is running
ok $? "CilkNodes shows the node running again"
wait_for 10 ticked_past "${tick1:-0}"
ok $? "ticks resume"
if wait_for 30 ended "$SUS"; then
	wait "$SUS"
	rc=$?
else
	rc=124	# still running: stopped
	stop "$SUS"
fi
exit_is $rc 0 "the job ends, CilkRun"
contains "$T/sus.out" "done 60\$" "with the right last line (done 60)"
[ "$(grep -cE "tick [0-9]+\$" "$T/sus.out")" -eq 60 ] &&
    [ "$(grep -oE "tick [0-9]+\$" "$T/sus.out" | sort -u | wc -l)" -eq 60 ]
ok $? "and all 60 ticks, once each"
! grep -q "stopping worker" "$LOG"
ok $? "the worker was never stopped"
wait_for 10 none_left
wait_for 10 node_is idle
ok $? "the node is lendable again"

# 2. suspend=2 and the owner stays: stopped after about 2 s.
as_alice sus2 --owner-return=suspend=2 -- "$HOSTILE" spin
SUS2=$LAST_PID
wait_for 20 grep -q "spin ready" "$T/sus2.out"
ok $? "a job with --owner-return=suspend=2 runs"
owner_back
wait_for 5 grep -q "worker .* suspended for at most 2 s" "$LOG"
ok $? "the owner returns: it is suspended"
t0=$(now)
wait_for 5 frozen
ok $? "frozen"
wait_for 10 none_left
ok $? "the owner stays: no process of the worker is left"
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.5 && b - a < 6) }'
ok $? "stopped about 2 s after the suspension ($(awk -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%.1f", b - a }') s)"
contains "$LOG" "stopping worker .*: suspended for as long as it may be" \
    "the node manager says why"
wait_for 10 node_is busy
ok $? "the node is the owner's"
stop "$SUS2"
owner_away
wait_for 10 node_is idle
ok $? "and lendable again"

# 3. No flag: the worker is vacated at once, never suspended.
as_alice vac -- "$HOSTILE" spin
VAC=$LAST_PID
wait_for 20 grep -q "spin ready" "$T/vac.out"
ok $? "a job without --owner-return runs"
wait_for 10 node_is running
owner_back
t0=$(now)
wait_for 5 grep -q "stopping worker .*: the owner is back" "$LOG"
ok $? "the owner returns: the worker is stopped"
wait_for 5 none_left
ok $? "no process of it is left"
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 3.5) }'
ok $? "at once ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s)"
states_until busy 10 "$T/vac.states"
ok $? "the node is the owner's (seen: $(sort -u "$T/vac.states" | xargs))"
! grep -qx suspended "$T/vac.states" &&
    [ "$(grep -c "suspended for at most" "$LOG")" -eq 2 ]
ok $? "never suspended"
stop "$VAC"
owner_away
wait_for 10 node_is idle
"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1

# 4. A node with allow_suspend=no: the request is ignored, the worker
# vacated.
"$BIN/CilkLocal" start -n 2 -d "$D2" -p $PORT2 -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o allow_suspend=no >"$T/start2.out" 2>&1
exit_is $? 0 "CilkLocal start a second cluster with -o allow_suspend=no"
use "$D2"
echo "# $MECH"
grep -q "^allow_suspend = no" "$D2/cilknow.conf"
ok $? "its nodes are configured allow_suspend = no"
echo idletime=0 >"$D2/nodes/127.0.0.3/sensors"
"$BIN/CilkKey" public "$T/$ALICE.id" >"$D2/users/$ALICE.pub" &&
    chmod 644 "$D2/users/$ALICE.pub" && reload_local "$D2"
ok $? "$ALICE's key installed there, the daemons reloaded"
wait_for 15 node_is idle &&
    wait_for 15 sh -c "'$BIN/CilkNodes' | grep -Eq '127\.0\.0\.3 +busy '"
ok $? "its node 127.0.0.2 is lent, 127.0.0.3 its owner's"
as_alice nos --owner-return=suspend=30 -- "$HOSTILE" spin
NOS=$LAST_PID
wait_for 20 grep -q "spin ready" "$T/nos.out"
ok $? "a job with --owner-return=suspend=30 runs there"
wait_for 10 node_is running
owner_back
wait_for 5 grep -q "stopping worker .*: the owner is back" "$LOG"
ok $? "the owner returns: the worker is stopped"
wait_for 5 none_left
ok $? "no process of it is left"
states_until busy 10 "$T/nos.states"
ok $? "the node is the owner's (seen: $(sort -u "$T/nos.states" | xargs))"
! grep -qx suspended "$T/nos.states" && ! grep -q "suspended" "$LOG" &&
    ! grep -q "frozen" "$LOG"
ok $? "never suspended nor frozen"
stop "$NOS"
finish
