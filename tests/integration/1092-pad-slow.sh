#!/bin/bash
# A launch pad that does not come up must not hold the node back: while
# one worker's launch pad hangs in its start, the owner returns and the
# privileged parent stops the other worker at once, not after the start
# has timed out (it starts launch pads in the background, DESIGN.md §9).
# The hanging launch pad is a wrapper that waits; its start times out
# after 5 s and counts as the node's fault.
# leaks: every program (the launch pad is what it tests)
# ports: 20180-20189
. "$(dirname "$0")/lib.sh"
D=$T/cluster
PORT=20180
# Our programs, with a CilkLaunchPad that hangs while $T/hold exists.
mkdir "$T/sbin"
for f in "$SBIN"/*; do ln -s "$f" "$T/sbin/$(basename "$f")"; done
rm "$T/sbin/CilkLaunchPad"
cat >"$T/sbin/CilkLaunchPad" <<EOS
#!/bin/sh
if [ -e "$T/hold" ]; then
	: >"$T/hanging"
	exec sleep 30	# killed, by its pid, when its start times out
fi
exec "$SBIN/CilkLaunchPad" "\$@"
EOS
chmod 755 "$T/sbin/CilkLaunchPad"
export CILKNOW_SBIN=$T/sbin
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -s 2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1, 2 processors"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
LOG=$D/nodes/127.0.0.2/log
MARK=cilknow-padslow-$$
idle_cpus() { "$BIN/CilkNodes" --json 2>/dev/null | grep -o '"idle": *[0-9]*' | grep -o '[0-9]*$'; }

start runa "$BIN/CilkRun" --tasks 1 -- sh -c "sleep 300; : $MARK-a"
wait_for 30 shells "^sh -c .*$MARK-a" >/dev/null &&
    wait_for 30 grep -q 'worker j[0-9]*-[0-9a-f]* started on' "$LOG"
ok $? "job A's worker runs"
A=$(shells "^sh -c .*$MARK-a" | head -n 1)
WA=$(grep -o 'worker j[0-9]*-[0-9a-f]* started on' "$LOG" | head -n 1 | awk '{ print $2 }')
: >"$T/hold"
start runb "$BIN/CilkRun" --tasks 1 -- sh -c "sleep 300; : $MARK-b"
wait_for 30 test -e "$T/hanging"
ok $? "job B's launch pad hangs in its start"
echo idletime=0 >"$D/nodes/127.0.0.2/sensors"
wait_for 30 grep -q "worker $WA killed by signal\|worker $WA exited" "$LOG"
ok $? "the owner is back: job A's worker $WA is stopped"
wait_for 30 grep -q "the launch pad did not start within" "$LOG"
ok $? "job B's launch pad start times out"
# The order the node manager logged them in: A's stop first.
stopped=$(grep -n "worker $WA killed by signal\|worker $WA exited" "$LOG" | head -n 1 | cut -d: -f1)
timedout=$(grep -n "the launch pad did not start within" "$LOG" | head -n 1 | cut -d: -f1)
[ -n "$stopped" ] && [ -n "$timedout" ] && [ "$stopped" -lt "$timedout" ]
ok $? "A was stopped while B's launch pad was still starting (log lines $stopped < $timedout)" ||
    grep -n "$WA\|did not start\|owner" "$LOG" | sed 's/^/#   | /'
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
wait_for 10 gone "$A"
ok $? "A's process is gone"
rm -f "$T/hold"
finish
