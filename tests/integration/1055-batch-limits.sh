#!/bin/bash
# What a batch job is given arrives whole, or the submission says why
# (DESIGN §11), and every start of a task is counted:
#  1. an environment entry over the one limit (4095 bytes) is refused at
#     submission, exit 2, naming it; nothing is registered;
#  2. an argument over it the same;
#  3. an entry of 4000 bytes of lines (twice that once escaped for the
#     launch pad) reaches the task whole;
#  5. a submission that finds no configuration, or no broker, says so
#     in its first line and exits 3; a parallel program with no
#     configuration says so first and runs here alone;
#  4. a node that "reboots" under a task (its node manager, launch pad
#     and worker killed, its run folder emptied, the node manager started
#     again) asks for the task afresh: the job manager says so, the lost
#     attempt counts as stopped and the task runs again as attempt 2.
# ports: 19820-19839
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19820
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=2 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"
cd "$T" || exit 1

# 1. and 2.
BIG=$(head -c 5000 /dev/zero | tr '\0' x) timeout 30 "$BIN/CilkRun" \
    --tasks 1 -- true >"$T/big.out" 2>&1
exit_is $? 2 "an environment entry of 5004 bytes is refused"
contains "$T/big.out" "environment entry BIG has 5004 bytes, over 4095; nothing was submitted" \
    "saying which and why"
timeout 30 "$BIN/CilkRun" --tasks 1 -- echo "$(head -c 4096 /dev/zero |
    tr '\0' y)" >"$T/arg.out" 2>&1
exit_is $? 2 "an argument of 4096 bytes is refused"
contains "$T/arg.out" "argument 1 \(y+\.\.\.\) has 4096 bytes, over 4095" \
    "saying which and why"
[ "$("$BIN/CilkPs" | tail -n +2 | wc -l)" -eq 0 ]
ok $? "neither was registered"

# 3.
LINES=$(python3 -c 'print("ab\n" * 1333)')	# the shell drops the last \n
export LINES
timeout 60 "$BIN/CilkRun" --tasks 1 -- sh -c 'printf %s "$LINES" | wc -c;
    printf %s "$LINES" | sha256sum' >"$T/lines.out" 2>&1
exit_is $? 0 "a job with an entry of ${#LINES} bytes of lines runs"
want=$(printf %s "$LINES" | sha256sum | cut -c1-64)
contains "$T/lines.out" "^\[[0-9.]+\] ${#LINES}$" \
    "the task sees all ${#LINES} bytes"
contains "$T/lines.out" "^\[[0-9.]+\] $want " "and the same bytes"
unset LINES

# 5.
CILKNOW_CONF=$T/none.conf timeout 30 "$BIN/CilkRun" --tasks 1 -- true \
    >"$T/noconf.out" 2>&1
exit_is $? 3 "CilkRun with no configuration"
head -1 "$T/noconf.out" >"$T/noconf.1"
contains "$T/noconf.1" "no configuration: $T/none\.conf: No such file or directory .*nothing was submitted" \
    "says so in its first line"
sed "s/^broker = .*/broker = 127.0.0.1:$((PORT + 7))/" "$D/cilknow.conf" \
    >"$T/nobroker.conf"
CILKNOW_CONF=$T/nobroker.conf timeout 30 "$BIN/CilkRun" --tasks 1 -- true \
    >"$T/nobroker.out" 2>&1
exit_is $? 3 "CilkRun with no broker at its address"
head -1 "$T/nobroker.out" >"$T/nobroker.1"
contains "$T/nobroker.1" "the broker at 127\.0\.0\.1:$((PORT + 7)) did not answer" \
    "says so in its first line"
CILKNOW_CONF=$T/none.conf timeout 60 "$BIN/queens" 8 >"$T/q.out" 2>"$T/q.err"
exit_is $? 0 "queens with no configuration runs"
head -1 "$T/q.err" >"$T/q.1"
contains "$T/q.1" "^queens: cilknow: no configuration: $T/none\.conf: .*running on this workstation alone" \
    "saying first that it runs alone, and why"
answer_is "$T/q.out" 92 "with the right answer"

# 4.
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT"
if [ "$CILKNOW_ATTEMPT" = 1 ]; then
	echo "$CILKNOW_NODE $$" >"$MARK.tmp" && mv "$MARK.tmp" "$MARK"
	exec sleep 300
fi
EOS
chmod 755 "$T/task.sh"
export MARK=$T/mark
start r4 "$BIN/CilkRun" -t 120 --tasks 1 -- sh "$T/task.sh"
R4=$LAST_PID
wait_for 30 test -s "$MARK"
ok $? "the task runs, attempt 1"
read -r NODE WPID <"$MARK"
LP=$(ps -o ppid= -p "$WPID" | tr -d ' ')
NM=$(awk -v a="$NODE:$((PORT + 1))" '$1 == "node" && $3 == a { print $2 }' \
    "$D/pids")
EN=$(pgrep -P "$NM" | tr '\n' ' ')
[ -n "$LP" ] && [ -n "$NM" ] && [ -n "$EN" ]
ok $? "its launch pad ($LP), node manager ($NM) and engine ($EN) found"
# shellcheck disable=SC2086
kill -KILL "$NM" $EN "$LP" "$WPID"
rm -rf "${D:?}/nodes/$NODE/run/"*
"$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen="$NODE:$((PORT + 1))" -o state_dir="$D/nodes/$NODE/state" \
    -o run_dir="$D/nodes/$NODE/run" \
    -o sensors=file:"$D/nodes/$NODE/sensors" >"$T/nm.log" 2>&1 &
PIDS="$PIDS $!"
ended() { ! kill -0 "$1" 2>/dev/null; }
wait_for 60 ended "$R4"
ok $? "the job ends"
wait "$R4"
exit_is $? 0 "with exit 0"
contains "$T/r4.out" "task 0 on $NODE: its node asks for it afresh \(it restarted\): attempt 1 was lost with it and counts as stopped; attempt 2 starts there" \
    "the job manager says the attempt was lost with the node"
contains "$T/r4.out" "^\[[0-9.]+\] task 0 attempt 2$" \
    "the task runs again as attempt 2"
contains "$T/r4.out" "all tasks done \(1 done, 0 failed, 1 stopped by their nodes\)" \
    "and the end counts the lost attempt as stopped"
finish
