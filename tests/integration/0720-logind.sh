#!/bin/bash
# logind's idle hint where a node manager reads no input device: a node
# manager with the system sensors, no input devices and logind = a
# private D-Bus bus on which tests/tools/fake_logind answers for
# systemd-logind.  Active users: the node is busy; idle for long
# enough: it is lent and runs a job; active again: the worker stops.
# The last session ends (logind then answers an idle hint since 0): the
# node is lent only once the idle time has passed since the logout, and
# a node manager started with no session counts from its own start,
# never from boot.  Any uptime will do: the stand-in answers "since
# boot" for an idle time longer than it.
# ports: 17580-17589
. "$(dirname "$0")/lib.sh"
if ! command -v dbus-daemon >/dev/null; then
	echo "ok 1 # SKIP no dbus-daemon (make check-deps)"
	finish
	exit 0
fi
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17580
BUS=$T/bus
STATE=$T/logind.state
echo active >"$STATE"
# Any user may connect: the node manager's engine asks as cilknow, as it
# asks the system bus, which lets every user read logind's properties.
cat >"$T/bus.conf" <<EOB
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$BUS</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOB
start dbus dbus-daemon --config-file="$T/bus.conf" --nofork
wait_for 10 test -S "$BUS"
ok $? "a private D-Bus bus"
start logind "$TOOLS/fake_logind" "unix:path=$BUS" "$STATE"
wait_for 10 grep -qx ready "$T/logind.out"
ok $? "a stand-in for logind owns org.freedesktop.login1 on it"

"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1 (a broker and 127.0.0.2)"
# The extra node's launch pads outlive it, as they should: ours to end.
stop_n3_pads() {
	for f in "$T"/n3/state/workers/*/lpad.pid; do
		[ -s "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
	done
	return 0
}
trap 'stop_n3_pads; "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
# Only the idle time counts: the machine's load and users are real here.
"$BIN/CilkPred" always del load >"$T/p1.out" 2>&1 &&
    "$BIN/CilkPred" always del idletime >"$T/p2.out" 2>&1 &&
    "$BIN/CilkPred" always add idletime=2 >"$T/p3.out" 2>&1
ok $? "the always predicate is now idletime=2 alone"

# A node manager of our own on 127.0.0.3: system sensors, no devices.
# (slots_by_load = no: the load it reads is other tests', no owner's.)
N3=$T/n3
mkdir -p "$N3/state" "$N3/run"
start n3 "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=127.0.0.3:$((PORT + 1)) -o state_dir="$N3/state" \
    -o run_dir="$N3/run" -o sensors=system -o input_devices=none \
    -o logind="unix:path=$BUS" -o slots_by_load=no
N3PID=$LAST_PID
wait_for 10 grep -q "logind (unix:path=$BUS): reading its idle hint" \
    "$T/n3.out"
ok $? "the node manager reads logind's idle hint"
state_is() { "$BIN/CilkNodes" | awk '$2 == "127.0.0.3" { print $3 }' | grep -qx "$1"; }
wait_for 15 state_is busy
ok $? "logind says the users are active: 127.0.0.3 is busy"

echo "idle 1000" >"$STATE"
wait_for 15 state_is idle
ok $? "logind says idle for 1000 s: 127.0.0.3 is lent"
# logind can say no more than "since boot": 1000 s or the uptime.
want=$(awk '{ s = int($1); print (s > 1000 ? 1000 : s) }' /proc/uptime)
"$BIN/CilkNodes" --json >"$T/nodes.json"
python3 -c 'import json, sys
n = [x for x in json.load(open(sys.argv[1]))["nodes"] if x["host"] == "127.0.0.3"]
assert n and int(sys.argv[2]) - 2 <= n[0]["idle"] <= int(sys.argv[2]) + 30, n' \
    "$T/nodes.json" "$want"
ok $? "CilkNodes shows its idle time from logind (about $want s)"

MARK=cilknow-logind-$$
start run "$BIN/CilkRun" -- sh -c "sleep 300; : $MARK"
RUN=$LAST_PID
on3() { grep -q "worker .* started" "$T/n3.out" &&
    test "$(shells "^sh -c sleep 300; : $MARK" | wc -l)" -eq 2; }
wait_for 20 on3
ok $? "a job runs on 127.0.0.3 too"

echo active >"$STATE"
gone3() { grep -q "stopping worker" "$T/n3.out" &&
    test "$(shells "^sh -c sleep 300; : $MARK" | wc -l)" -eq 1; }
wait_for 10 gone3
ok $? "logind says active again: its worker stops"
wait_for 10 state_is busy
ok $? "and 127.0.0.3 is busy"
kill -INT "$RUN"
wait "$RUN" 2>/dev/null

# The last session ends: idle from the logout, not from boot.
"$BIN/CilkPred" always add idletime=10 >"$T/p4.out" 2>&1
ok $? "the always predicate is now idletime=10"
secs() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(secs)" 'BEGIN { printf "%.1f", b - a }'; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
t0=$(secs)
echo none >"$STATE"
wait_for 30 state_is idle
ok $? "logind knows no session: 127.0.0.3 is lent in the end"
dt=$(since "$t0")
at_least "$dt" 8
ok $? "but only once idletime=10 has passed since the logout (${dt} s)"

# A node manager started with no session counts from its start (when
# wtmp records no login or logout to count from).
stop "$N3PID"
# (forgotten by the broker, it is listed as down until it comes back)
down() { "$BIN/CilkNodes" | awk '$2 == "127.0.0.3" && $3 == "down"' | grep -q .; }
wait_for 10 down
ok $? "the stopped node manager is listed as down"
if [ -s /var/log/wtmp ]; then
	echo "ok $((TAP_N += 1)) # SKIP /var/log/wtmp has records: idle counts from them"
else
	t0=$(secs)
	start n3b "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
	    -o listen=127.0.0.3:$((PORT + 1)) -o state_dir="$N3/state" \
	    -o run_dir="$N3/run" -o sensors=system -o input_devices=none \
	    -o logind="unix:path=$BUS" -o slots_by_load=no
	N3PID=$LAST_PID
	wait_for 30 state_is idle
	rc=$?
	dt=$(since "$t0")
	[ $rc -eq 0 ] && at_least "$dt" 9
	ok $? "restarted with no session, it is lent only idletime=10 after its start (${dt} s)"
	stop "$N3PID"
fi
finish
