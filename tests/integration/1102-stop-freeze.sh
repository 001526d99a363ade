#!/bin/bash
# The owner's machine back within a second (stop_grace_fast): a guest
# that ignores SIGQUIT and spins, on a CilkLocal cluster where only
# 127.0.0.2 is lent, stop_grace 15, stop_grace_fast 1.  The owner comes
# back: the worker gets SIGQUIT, ignores it, is frozen after
# stop_grace_fast (cgroup.freeze; SIGSTOP to every process where there
# is no cgroup) and uses no CPU from then on (two readings of its
# cgroup's cpu.stat, or /proc utime+stime, compared: counts, not
# timings), is still there (frozen) until stop_grace is over, then
# killed, and nothing of it is left.  Once with cgroups (where the
# host has a cgroup v2 the node manager may use), once with
# cgroup = none.  Needs root (the job runs as "daemon").
# ports: 20590-20609
. "$(dirname "$0")/lib.sh"
HOSTILE=$T/hostile
cp "$TOOLS/hostile" "$HOSTILE" && chmod 755 "$HOSTILE" ||
    { echo "Bail out! cannot copy $TOOLS/hostile"; exit 1; }
root_or_skip
unset CILKNOW_OWNER_RETURN
export CILKNOW_SBIN=$SBIN
ALICE=daemon
"$BIN/CilkKey" generate-user -u $ALICE "$T/$ALICE.id" >/dev/null
ok $? "a key for $ALICE"
mkdir "$T/work" && chmod 777 "$T/work"
cd "$T/work" || exit 1
trap 'for d in "$T"/c-*; do "$BIN/CilkLocal" stop -d "$d" >/dev/null 2>&1;
    done; cleanup' EXIT

# Without a cgroup: the worker's main process (its launch pad's pid
# file) and its descendants; other tests' processes of the same user
# are not this worker's.
tree_of() {
	for q in "$@"; do
		echo "$q"
		tree_of $(pgrep -P "$q")
	done
}
worker_pids() {
	if [ -n "$CGBASE" ]; then
		cat "$CGBASE"/w-*/cgroup.procs 2>/dev/null
	else
		for f in "$C"/nodes/127.0.0.2/state/workers/*/pid; do
			q=$(cat "$f" 2>/dev/null) && kill -0 "$q" 2>/dev/null &&
			    tree_of "$q"
		done
	fi
}
none_left() { test -z "$(worker_pids)"; }
frozen() {
	if [ -n "$CGBASE" ]; then
		grep -qx "frozen 1" "$CGBASE"/w-*/cgroup.events 2>/dev/null
	else
		p=$(worker_pids)
		[ -n "$p" ] && ! for q in $p; do
			sed -E 's/^[0-9]+ \(.*\) //' /proc/"$q"/stat 2>/dev/null
		done | grep -qv '^T'
	fi
}
# CPU time of the worker's processes: microseconds (cgroup), or clock
# ticks of utime + stime of each process, as the kernel counts them.
cpu_used() {
	if [ -n "$CGBASE" ]; then
		awk '$1 == "usage_usec" { s += $2 } END { print s + 0 }' \
		    "$CGBASE"/w-*/cpu.stat 2>/dev/null
	else
		for q in $(worker_pids); do
			sed -E 's/^[0-9]+ \(.*\) //' /proc/"$q"/stat 2>/dev/null
		done | awk '{ s += $12 + $13 } END { print s + 0 }'
	fi
}
state_of() { "$BIN/CilkNodes" | awk '$2 == "127.0.0.2" { print $3 }'; }
node_is() { test "$(state_of)" = "$1"; }
# Worker folders and launch pad sockets of the lent node.
leftovers() {
	ls "$C"/nodes/127.0.0.2/state/workers "$C"/nodes/127.0.0.2/run/lpad \
	    2>/dev/null | grep -c '^[jr]'
}

run_case() {	# run_case NAME PORT CGROUP-SETTING
	local name=$1 port=$2 cg=$3 JOB
	C=$T/c-$name
	"$BIN/CilkLocal" start -n 2 -d "$C" -p "$port" -o register_interval=1 \
	    -o stop_grace=15 -o stop_grace_fast=1 -o timeout=2 -o cgroup="$cg" \
	    >"$T/start-$name.out" 2>&1
	exit_is $? 0 "$name: CilkLocal start -n 2 -o cgroup=$cg"
	export CILKNOW_CONF=$C/cilknow.conf
	LOG=$C/nodes/127.0.0.2/log
	echo idletime=0 >"$C/nodes/127.0.0.3/sensors"
	wait_for 10 grep -q "workers: " "$LOG"
	MECH=$(grep -m1 -o "workers: .*" "$LOG")
	CGBASE=
	case "$MECH" in
	*"cgroup v2 at "*)
		CGBASE=$(echo "$MECH" |
		    sed -E 's/.*cgroup v2 at ([^ ]+).*/\1/') ;;
	esac
	echo "# $name: $MECH"
	"$BIN/CilkKey" public "$T/$ALICE.id" >"$C/users/$ALICE.pub" &&
	    chmod 644 "$C/users/$ALICE.pub" && reload_local "$C"
	ok $? "$name: $ALICE's key installed, the daemons reloaded"
	wait_for 15 node_is idle &&
	    wait_for 15 sh -c "'$BIN/CilkNodes' | grep -Eq '127\.0\.0\.3 +busy '"
	ok $? "$name: 127.0.0.2 is lent, 127.0.0.3 its owner's"
	# SIGQUIT ignored (an ignored signal stays so across exec), spinning.
	export HOSTILE_ALARM=120
	start "$name" "$BIN/CilkRun" -o user_key="$T/$ALICE.id" -- sh -c \
	    "trap '' QUIT; exec '$HOSTILE' spin"
	JOB=$LAST_PID
	wait_for 30 grep -q "spin ready" "$T/$name.out"
	ok $? "$name: a guest that ignores SIGQUIT spins"
	spun() { [ "$(cpu_used)" -gt 0 ]; }
	wait_for 10 spun
	ok $? "$name: it uses CPU ($(cpu_used))"
	echo idletime=0 >"$C/nodes/127.0.0.2/sensors"	# the owner is back
	wait_for 5 grep -q "stopping worker .*: the owner is back" "$LOG"
	ok $? "$name: the owner is back: the worker is stopped"
	wait_for 5 grep -q "still there after stop_grace_fast: frozen" "$LOG"
	ok $? "$name: still there after stop_grace_fast (1 s): frozen"
	wait_for 3 frozen
	ok $? "$name: the kernel says so ($(worker_pids | wc -l) processes)"
	pids=$(worker_pids | sort)
	cpu1=$(cpu_used)
	sleep 2	# a measure over time: nothing to poll for
	cpu2=$(cpu_used)
	[ -n "$cpu1" ] && [ "$cpu1" = "$cpu2" ]
	ok $? "$name: frozen, it uses no CPU over 2 s ($cpu1 -> $cpu2)"
	[ -n "$pids" ] && [ "$(worker_pids | sort)" = "$pids" ] &&
	    ! grep -q "stop_grace is over: killed" "$LOG"
	ok $? "$name: and is still there, frozen, within stop_grace"
	! grep -q "SIGQUIT again" "$LOG"
	ok $? "$name: no second SIGQUIT thawed it"
	wait_for 30 none_left
	ok $? "$name: killed once stop_grace is over: no process left"
	# the parent's kill or its launch pad's, whichever came first
	# (a launch pad logs to syslog): the worker's end is SIGKILL
	grep -q "stop_grace is over: killed\|frozen since its owner came back\|worker j[0-9a-f-]* killed by signal 9" \
	    "$LOG"
	ok $? "$name: the node manager says it was killed"
	! grep -q "still there after its stop" "$LOG"
	ok $? "$name: no hard kill was needed"
	if [ -n "$CGBASE" ]; then
		wait_for 10 sh -c "! ls -d '$CGBASE'/w-* >/dev/null 2>&1"
		ok $? "$name: its cgroup is gone"
	fi
	wait_for 10 node_is busy
	ok $? "$name: the node is its owner's"
	wait_for 15 test "$(leftovers)" -eq 0
	ok $? "$name: no worker folder nor launch pad socket is left"
	[ "$TAP_FAILED" -gt 0 ] && grep -E "worker|owner" "$LOG" |
	    sed 's/^/#   nm | /' | tail -40
	stop "$JOB"
	"$BIN/CilkLocal" stop -d "$C" >/dev/null 2>&1
	ok $? "$name: cluster stopped"
}

if grep -q cgroup2 /proc/mounts; then
	run_case cgroup 20590 auto
else
	echo "# no cgroup v2 mounted: only the process tree"
fi
run_case tree 20600 none
finish
