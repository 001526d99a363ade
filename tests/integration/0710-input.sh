#!/bin/bash
# The node manager's input-device reader, fed real struct input_event
# records through a FIFO (input_devices = the FIFO): a key press while
# a worker runs resets the idle time, the worker is stopped at once and
# the node goes busy; after the predicate's idle time without input the
# node is lent again and gets the job back; a restarted node manager
# adopts the worker without taking the reopened devices for the owner.
# Then the same through a virtual keyboard made with /dev/uinput, where
# that exists.
# ports: 17620-17639
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17620
KBD=$T/kbd
mkfifo "$KBD"
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o input_devices="$T/kbd*" \
    >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1, input_devices = a glob matching a FIFO"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
LOG=$D/nodes/127.0.0.2/log
state_is() { "$BIN/CilkNodes" | awk '$2 == "127.0.0.2" { print $3 }' | grep -qx "$1"; }
MARK=cilknow-input-$$
workers_are() { test "$(shells "^sh -c .*$MARK" | wc -l)" -eq "$1"; }
# The node is lent again 2 s after a key press: "no worker" may last
# only a moment on a busy machine, so a stop is seen as the end of the
# worker that ran before the press.
worker() { shells "^sh -c .*$MARK" | head -n 1; }
gone() {	# gone PID : no such process, or a zombie (its parent reaps it)
	! kill -0 "$1" 2>/dev/null ||
	    [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}
# One EV_KEY press of KEY_A and its EV_SYN, as the kernel writes them
# (x86-64 layout is the native one: struct timeval, u16 type, u16 code,
# s32 value); bash's printf, which starts at once on a busy machine.
EV_KEY_A='\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\x1e\0\x01\0\0\0'
EV_SYN='\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
press() {	# press [DEVICE]: $KBD by default
	timeout 20 bash -c 'printf "$1$2" >"$3"' _ "$EV_KEY_A" "$EV_SYN" "${1:-$KBD}"
}

wait_for 10 grep -q "reading input device $KBD" "$LOG"
ok $? "the node manager reads the FIFO as an input device"
# Devices are the privileged parent's (DESIGN.md §9): the engine, which
# reads the network, holds none, and as root it has no group or
# capability left that could open one.
PARENT=$(cat "$D/nodes/127.0.0.2/run/CilkNodeManager.pid")
ENGINE=$(ps -o pid= --ppid "$PARENT" | tr -d ' ' | head -n 1)
holds() { ls -l /proc/"$1"/fd 2>/dev/null | grep -qF -- "-> $KBD"; }
[ -n "$ENGINE" ] && holds "$PARENT" && ! holds "$ENGINE"
ok $? "the parent holds the device open, the engine does not"
if [ "$(id -u)" = 0 ]; then
	grep -Eq '^Groups:\s*$' /proc/"$ENGINE"/status
	ok $? "the engine has no supplementary group (input included)"
	grep -Eq '^CapBnd:\s+0+$' /proc/"$ENGINE"/status &&
	    grep -Eq '^CapEff:\s+0+$' /proc/"$ENGINE"/status &&
	    grep -Eq '^CapPrm:\s+0+$' /proc/"$ENGINE"/status
	ok $? "the engine has no capability, its bounding set empty"
	# Its own view of the files (CilkNodeManager(8), PRIVILEGES): a
	# read-only tmpfs root in a mount namespace of its own, with only
	# its folders, the users' keys and (a test build) /proc bound into
	# it; no /etc (the users' names come from the parent), no /run.
	[ "$(readlink /proc/"$ENGINE"/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] &&
	    grep -Eq '^[0-9]+ [0-9]+ [0-9:]+ / / ro,.* - tmpfs ' \
	    /proc/"$ENGINE"/mountinfo
	ok $? "the engine's root is a read-only tmpfs of its own mount namespace"
	! grep -q 'engine\.view' /proc/self/mountinfo
	ok $? "none of its mounts is in ours"
	R=/proc/$ENGINE/root
	[ -d "$R$D/nodes/127.0.0.2/state/engine" ] && [ ! -e "$R/etc" ] &&
	    [ ! -e "$R/run" ] &&
	    [ ! -e "$R$KBD" ] && [ ! -e "$R/usr" ] && [ ! -e "$R/home" ] &&
	    [ ! -e "$R/dev/input" ] && [ ! -e "$R$D/cilknow.conf" ] &&
	    [ ! -e "$R$D/nodes/127.0.0.2/sensors" ]
	ok $? "it sees its folder, not the devices, the sensors, /usr, /etc, /run or the homes" ||
	    ls -la "$R" "$R$D" 2>&1 | sed 's/^/#   | /'
else
	ok 0 "# SKIP not root: the engine is this user, groups and all"
	ok 0 "# SKIP not root: no capability to drop"
	ok 0 "# SKIP not root: no mount namespace to make"
	ok 0 "# SKIP not root: no mounts to keep from ours"
	ok 0 "# SKIP not root: no view to make"
fi
# Input counts from the device's opening: 15 minutes would be too long.
"$BIN/CilkPred" always add idletime=2 >/dev/null 2>&1
exit_is $? 0 "CilkPred always add idletime=2"
wait_for 15 state_is idle
ok $? "2 s without input: the node is lent"

start run "$BIN/CilkRun" -- sh -c "sleep 300; : $MARK"
RUN=$LAST_PID
wait_for 20 workers_are 1
ok $? "a worker runs"
W=$(worker)
press
ok $? "a key press is written into the FIFO"
PRESSED=$(date +%s)
wait_for 10 grep -q "the owner is back" "$LOG"
ok $? "the node manager notices the key press"
wait_for 10 gone "$W"
ok $? "and the worker is stopped"
"$BIN/CilkPred" node=127.0.0.2 check >"$T/check.out" 2>&1
# Counted from the press, not from the device's opening (20 s and more).
since=$(( $(date +%s) - PRESSED ))
idle=$(sed -n 's/^  idletime (input): \([0-9]*\) >= 2: .*/\1/p' "$T/check.out")
[ -n "$idle" ] && [ "$idle" -le $((since + 1)) ]
ok $? "check shows the idle time reset by the key press (${idle:-?} s; ${since} s since it)" ||
    sed 's/^/#   | /' "$T/check.out"
# The owner stays away: the node is lent again and gets the job back.
wait_for 20 workers_are 1
ok $? "after 2 s without input the node runs the job again"
[ "$(grep -c "the owner is away" "$LOG")" -ge 2 ]
ok $? "it was lent twice"
# The FIFO's writer left; a new writer is read as well.
W=$(worker)
press && wait_for 10 gone "$W"
ok $? "a second key press (a new writer) stops the worker again"

# A keyboard plugged in later (a second FIFO the glob now matches) is
# read from the next poll on.
mkfifo "$T/kbd2"
wait_for 10 grep -q "reading input device $T/kbd2" "$LOG"
ok $? "a device that appears later is read too"
wait_for 20 workers_are 1
ok $? "the node is lent again"
W=$(worker)
press "$T/kbd2" && wait_for 10 gone "$W"
ok $? "a key press on the new device stops the worker"

# A restart of the node manager stops no job: opening the devices again
# is not the owner's return (the last input is kept in its state).
wait_for 20 workers_are 1
ok $? "lent again, the node runs the job"
WPID=$(shells "^sh -c .*$MARK")
NM=$(awk '$1 == "node" && index($3, "127.0.0.2") == 1 { print $2 }' "$D/pids")
kill_nm "$NM"
start nm2 "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=127.0.0.2:$((PORT + 1)) -o state_dir="$D/nodes/127.0.0.2/state" \
    -o run_dir="$D/nodes/127.0.0.2/run" \
    -o sensors=file:"$D/nodes/127.0.0.2/sensors"
# A launch pad slow to answer is asked again: 5 + 10 s at most.
wait_for 20 grep -q "adopted worker .* (running)" "$T/nm2.out"
ok $? "the restarted node manager adopts the running worker" ||
    tail -n 8 "$T/nm2.out" | sed 's/^/#   | /'
! wait_for 4 grep -q "the owner is here\|the owner is back" "$T/nm2.out"
ok $? "and does not take the reopened devices for the owner"
[ "$(shells "^sh -c .*$MARK")" = "$WPID" ]
ok $? "the same worker runs on ($WPID)"
press "$T/kbd2" && wait_for 10 gone "$WPID"
ok $? "a real key press still stops it"
kill -INT "$RUN"
wait "$RUN" 2>/dev/null

# A virtual keyboard through uinput, where the kernel offers it: a
# cluster whose node reads that keyboard's event node loses its worker
# when the keyboard's key is pressed.
if [ ! -w /dev/uinput ]; then
	echo "# skip: /dev/uinput does not exist or is not writable here"
	ok 0 "# SKIP uinput test: no /dev/uinput"
else
	start kbd "$TOOLS/uinput_key"
	KBDPID=$LAST_PID
	made() { grep -q '^/dev/input/event' "$T/kbd.out"; }
	wait_for 10 made
	ok $? "a virtual keyboard exists ($(head -n 1 "$T/kbd.out"))"
	EV=$(head -n 1 "$T/kbd.out")
	U=$T/ucluster
	"$BIN/CilkLocal" start -n 1 -d "$U" -p 17630 -o register_interval=1 \
	    -o stop_grace=1 -o timeout=2 -o input_devices="$EV" \
	    >"$T/ustart.out" 2>&1
	exit_is $? 0 "CilkLocal start -n 1, input_devices = $EV"
	trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1;
	    "$BIN/CilkLocal" stop -d "$U" >/dev/null 2>&1; cleanup' EXIT
	grep -q "reading input device $EV" "$U/nodes/127.0.0.2/log"
	ok $? "the node manager reads it"
	export CILKNOW_CONF=$U/cilknow.conf
	start urun "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK"
	URUN=$LAST_PID
	wait_for 20 workers_are 1
	ok $? "a worker runs"
	W=$(worker)
	kill -USR1 "$KBDPID"
	wait_for 10 gone "$W"
	ok $? "a key press on the virtual keyboard stops it"
	kill -INT "$URUN"
	wait "$URUN" 2>/dev/null
	stop "$KBDPID"
fi
finish
