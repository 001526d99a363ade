#!/bin/bash
# A node leaving tells its jobs: CilkNodeManager -k while the node
# manager runs makes it stop its workers, report their ends to their job
# managers and exit, so a task that ran there runs again elsewhere at
# once ("stopped by its node"), not after the job manager's silence
# timeout ("no word of it from its node").  A CilkLocal cluster of three
# one-processor nodes; a job of two tasks that sleep 20 s on their first
# attempt; the node of task 0 leaves.  Timings are printed, not asserted.
# ports: 20430-20431
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20430
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 3
ok $? "3 idle nodes"

cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
if [ "$CILKNOW_ATTEMPT" = 1 ]; then
	[ "$CILKNOW_TASK" = 0 ] &&
	    echo "$CILKNOW_NODE" >"$MARK.tmp" && mv "$MARK.tmp" "$MARK"
	exec sleep 20
fi
exit 0
EOS
chmod 755 "$T/task.sh"
export MARK=$T/mark
ended() { ! kill -0 "$1" 2>/dev/null; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }

start run "$BIN/CilkRun" -t 120 --tasks 2 -- sh "$T/task.sh"
RUN=$LAST_PID
wait_for 30 test -s "$MARK"
ok $? "task 0 runs, attempt 1"
NODE=$(cat "$MARK")
wait_for 30 grep -q "task 1 attempt 1" "$T/run.out"
ok $? "task 1 runs too"
t0=$(ms)
"$SBIN/CilkNodeManager" -k -c "$D/cilknow.conf" \
    -o run_dir="$D/nodes/$NODE/run" -o stop_grace=1 >"$T/k.out" 2>&1
exit_is $? 0 "CilkNodeManager -k on $NODE, its node manager running"
t1=$(ms)
sed 's/^/#   -k | /' "$T/k.out"
contains "$T/k.out" "^the node manager \(pid [0-9]+\) is leaving: it stops its workers and tells their job managers$" \
    "-k tells the running node manager to leave"
contains "$T/k.out" "^the node manager has left$" "and waits until it has"
contains "$D/nodes/$NODE/log" "leaving the cluster: stopping every worker and telling their job managers" \
    "the node manager logs that it leaves"
contains "$D/nodes/$NODE/log" "left: every worker's end was told to its job manager" \
    "and that every end was acknowledged before it exited"
wait_for 30 grep -q "task 0 attempt 2" "$T/run.out"
ok $? "task 0 runs again"
t2=$(ms)
contains "$T/run.out" "task 0 on $NODE stopped by its node; it runs again" \
    "the job manager was told: its node stopped the task"
! grep -q "no word of it from its node" "$T/run.out"
ok $? "not from its silence timeout"
grep -q "task 0 attempt 2 on $NODE" "$T/run.out"
[ $? -ne 0 ]
ok $? "attempt 2 ran on another node"
wait_for 60 ended $RUN
ok $? "the job ends"
wait "$RUN"
exit_is $? 0 "with exit 0"
echo "# -k took $((t1 - t0)) ms; task 0 ran again $((t2 - t0)) ms after -k began"
finish
