#!/bin/bash
# logind's idle hint where a node manager reads no input device: a node
# manager with the system sensors, no input devices and logind = a
# private D-Bus bus on which tests/tools/fake_logind answers for
# systemd-logind.  Active users: the node is busy; idle for long
# enough: it is lent and runs a job; active again: the worker stops.
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
N3=$T/n3
mkdir -p "$N3/state" "$N3/run"
start n3 "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=127.0.0.3:$((PORT + 1)) -o state_dir="$N3/state" \
    -o run_dir="$N3/run" -o sensors=system -o input_devices=none \
    -o logind="unix:path=$BUS"
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
"$BIN/CilkNodes" >"$T/nodes.out"
contains "$T/nodes.out" '127\.0\.0\.3 +idle +- +[0-9.]+ +(99[0-9]|1[0-9]{3})\b' \
    "CilkNodes shows its idle time from logind"

MARK=cilknow-logind-$$
start run "$BIN/CilkRun" -- sh -c "sleep 300; : $MARK"
RUN=$LAST_PID
on3() { grep -q "worker .* started" "$T/n3.out" &&
    test "$(pgrep -f "^sh -c sleep 300; : $MARK" | wc -l)" -eq 2; }
wait_for 20 on3
ok $? "a job runs on 127.0.0.3 too"

echo active >"$STATE"
gone3() { grep -q "stopping worker" "$T/n3.out" &&
    test "$(pgrep -f "^sh -c sleep 300; : $MARK" | wc -l)" -eq 1; }
wait_for 10 gone3
ok $? "logind says active again: its worker stops"
wait_for 10 state_is busy
ok $? "and 127.0.0.3 is busy"
kill -INT "$RUN"
wait "$RUN" 2>/dev/null
stop "$N3PID"
finish
