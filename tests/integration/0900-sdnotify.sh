#!/bin/bash
# The readiness protocol of systemd's Type=notify units, through the
# real daemons: READY=1 once listening (and only then does CilkPing
# answer), WATCHDOG=1 at half of WATCHDOG_USEC, RELOADING=1 then READY=1
# on SIGHUP, STOPPING=1 on SIGTERM.  notify_listen stands in for
# systemd's socket and records who sent each notification: every one
# must come from the process systemd started (NotifyAccess=main in the
# units), never from the broker's or the node manager's unprivileged
# child, or systemd logs "reception only permitted for main PID".
# ports: 17800-17809
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
B=127.0.0.1:17800
N=127.0.0.1:17801
echo idletime=1000000 >"$T/sensors"

# daemon NAME PROG ARGS... : PROG -f under a notify socket of its own
daemon() {
	local d=$1; shift	# start() sets the global $name
	start "$d-listen" "$TOOLS/notify_listen" "$T/$d.sock" \
	    "$T/$d.notify" 60 "$T/$d.pids"
	wait_for 5 test -S "$T/$d.sock" || return 1
	NOTIFY_SOCKET=$T/$d.sock WATCHDOG_USEC=200000 start "$d" "$@"
}
# The lines hold '|' for newlines: patterns are ERE, '|' written '\|'.
notified() { grep -Eq -- "$2" "$T/$1.notify" 2>/dev/null; }
count() { grep -Ec -- "$2" "$T/$1.notify" 2>/dev/null; }
at_least() { test "$(count "$1" "$2")" -ge "$3"; }

daemon broker "$SBIN/CilkJobBroker" -f -c "$C" -o listen=$B \
    -o run_dir="$T/brun" -o state_dir="$T/bstate"
BROKER=$LAST_PID
wait_for 10 notified broker '^READY=1\|MAINPID=[0-9]+\|STATUS=listening on 127\.0\.0\.1:17800$'
ok $? "the broker says READY=1, its pid and where it listens"
grep -q "MAINPID=$BROKER|" "$T/broker.notify"
ok $? "MAINPID is the broker's own pid ($BROKER)"
"$BIN/CilkPing" -c "$C" -n 1 -W 1 "$B" >/dev/null 2>&1
ok $? "and CilkPing gets an answer once it is ready"
wait_for 10 at_least broker '^WATCHDOG=1$' 3
ok $? "WATCHDOG=1 keeps coming (WATCHDOG_USEC=200000)"

kill -HUP "$BROKER"
wait_for 10 notified broker '^RELOADING=1\|MONOTONIC_USEC=[0-9]+$'
ok $? "SIGHUP: RELOADING=1 with MONOTONIC_USEC"
wait_for 10 at_least broker '^READY=1' 2
ok $? "then READY=1 again"
awk '/^RELOADING/ { r = NR } /^READY/ { l = NR } END { exit !(r && l > r) }' \
    "$T/broker.notify"
ok $? "in that order"

daemon node env CILKNOW_SBIN="$SBIN" "$SBIN/CilkNodeManager" -f -c "$C" \
    -o listen=$N -o broker=$B -o run_dir="$T/nrun" \
    -o state_dir="$T/nstate" -o sensors=file:"$T/sensors"
NODE=$LAST_PID
wait_for 10 notified node '^READY=1\|MAINPID=[0-9]+\|STATUS=listening on 127\.0\.0\.1:17801$'
ok $? "the node manager says READY=1 too (the same start-up code)"
wait_for 10 at_least node '^WATCHDOG=1$' 2
ok $? "and pings the watchdog"
# The ping is the engine's, whose loop reads the network: with the
# engine stopped, systemd hears nothing, though the parent runs on.
ENGINE=$(ps -o pid= --ppid "$NODE" | tr -d ' ' | head -n 1)
kill -STOP "$ENGINE"
sleep 0.5	# a ping already sent is passed on
STOPPED_AT=$(count node '^WATCHDOG=1$')
! wait_for 2 at_least node '^WATCHDOG=1$' $((STOPPED_AT + 1))
ok $? "no WATCHDOG=1 while the engine is stopped (SIGSTOP, 2 s)"
kill -CONT "$ENGINE"
wait_for 10 at_least node '^WATCHDOG=1$' $((STOPPED_AT + 2))
ok $? "and again once it runs"

stop "$BROKER"
notified broker '^STOPPING=1$'
ok $? "SIGTERM: the broker says STOPPING=1 before it exits"
stop "$NODE"
notified node '^STOPPING=1$'
ok $? "and so does the node manager"

# from_main NAME PID: every notification NAME's listener got came from PID
from_main() {
	awk -v pid="$2" '$1 != pid { bad++; print "from pid " $1 ": " $2 }
	    END { exit !(NR > 0 && bad == 0) }' "$T/$1.pids" >&2
}
from_main broker "$BROKER"
ok $? "every notification of the broker came from its main pid $BROKER (NotifyAccess=main)"
# stop waited for both processes; the listener reads within 0.2 s.
sleep 1
from_main node "$NODE"
ok $? "every notification of the node manager came from its main pid $NODE, none from its engine"

# No socket: the daemons run exactly as before, and a bad one is survived.
NOTIFY_SOCKET=relative/path start bad "$SBIN/CilkJobBroker" -f -c "$C" \
    -o listen=$B -o run_dir="$T/brun" -o state_dir="$T/bstate"
BAD=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.5 "$B"
ok $? "an unusable NOTIFY_SOCKET is logged and the broker still serves"
contains "$T/bad.out" "NOTIFY_SOCKET is unusable" "the log says why"
stop "$BAD"
finish
