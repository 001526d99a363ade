#!/bin/bash
# Indexed tasks (CilkRun --tasks N) on a CilkLocal cluster of two nodes:
#  1. --tasks 6: every task 0..5 runs once, attempt 1, exits 0; the job
#     ends 0;
#  2. a task that always fails is given up after --retries 2 attempts,
#     the others are done, the job ends 1 and says so;
#  3. a task whose worker its node stops (the owner returns) runs again
#     with the same number and CILKNOW_ATTEMPT 2;
#  4. a working folder missing on the nodes ends the job at once with
#     "working folder X does not exist on node N", not relaunched.
# ports: 18500-18519
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=18500
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT"
case "$TASKMODE:$CILKNOW_TASK:$CILKNOW_ATTEMPT" in
fail:1:*)	exit 3 ;;
stop:0:1)	echo "$CILKNOW_NODE" >"$MARK.tmp" && mv "$MARK.tmp" "$MARK"
		exec sleep 300 ;;
esac
exit 0
EOS
chmod 755 "$T/task.sh"
export MARK=$T/stopme
ended() { ! kill -0 "$1" 2>/dev/null; }
lent() {	# lent yes|no NODE...
	v=1000000; [ "$1" = no ] && v=0; shift
	for h in "$@"; do echo "idletime=$v" >"$D/nodes/$h/sensors"; done
}

# 1. Six tasks, each once.
TASKMODE=ok "$BIN/CilkRun" -t 60 --tasks 6 -- sh "$T/task.sh" \
    >"$T/r1.out" 2>"$T/r1.err"
exit_is $? 0 "CilkRun --tasks 6 ends 0"
for i in 0 1 2 3 4 5; do
	[ "$(grep -c "^\[[0-9.]*\] task $i attempt 1$" "$T/r1.out")" -eq 1 ] &&
	    [ "$(grep -Ec "task $i on [0-9.]+ exited 0$" "$T/r1.err")" -eq 1 ]
	ok $? "task $i ran once, attempt 1, and exited 0"
done
[ "$(grep -c '^\[' "$T/r1.out")" -eq 6 ]
ok $? "six instances in all"
contains "$T/r1.err" "ends: all tasks done \(6 done, 0 failed" \
    "the job ends: all tasks done"

# 2. Task 1 always fails: given up after 2 failures.
TASKMODE=fail "$BIN/CilkRun" -t 60 --tasks 3 --retries 2 -- \
    sh "$T/task.sh" >"$T/r2.out" 2>"$T/r2.err"
exit_is $? 1 "a job with a task given up ends 1"
contains "$T/r2.err" "task 1 on [0-9.]+ exited 3 \(failure 1 of 2; it runs again\)" \
    "the first failure is retried"
contains "$T/r2.err" "task 1 on [0-9.]+ exited 3: given up after 2 failures" \
    "the second gives the task up"
contains "$T/r2.err" "ends: all tasks ended, 1 given up after 2 failures \(task 1\)" \
    "the end says which task was given up"
! grep -q "task 1 attempt 3" "$T/r2.out" &&
    grep -q "task 1 attempt 2" "$T/r2.out"
ok $? "task 1 ran twice, not three times"
[ "$(grep -c "task [02] attempt 1$" "$T/r2.out")" -eq 2 ]
ok $? "tasks 0 and 2 ran once each"

# 3. Task 0's node is taken back by its owner: it runs again, attempt 2.
rm -f "$MARK"
TASKMODE=stop start r3 "$BIN/CilkRun" -t 60 --tasks 2 -- sh "$T/task.sh"
R3=$LAST_PID
wait_for 20 test -s "$MARK"
ok $? "task 0 runs, attempt 1"
NODE=$(cat "$MARK")
lent no "$NODE"
wait_for 30 ended $R3
ok $? "the job ends"
wait "$R3"
exit_is $? 0 "with exit 0"
contains "$T/r3.out" "task 0 on $NODE stopped by its node; it runs again" \
    "the stop is reported"
contains "$T/r3.out" "^\[[0-9.]+\] task 0 attempt 2$" \
    "task 0 runs again as attempt 2"
[ "$(grep -c "task 0 attempt 1$" "$T/r3.out")" -eq 1 ]
ok $? "attempt 1 ran once"
lent yes "$NODE"
wait_for 15 nodes_are idle 2
ok $? "both nodes idle again"

# 4. The working folder is gone by the time the nodes may run the job.
lent no 127.0.0.2 127.0.0.3
wait_for 15 nodes_are busy 2
ok $? "both nodes busy"
mkdir "$T/gone"
(cd "$T/gone" && exec "$BIN/CilkRun" -t 60 --tasks 4 -- sh "$T/task.sh") \
    >"$T/r4.out" 2>&1 &
R4=$!
PIDS="$PIDS $R4"
wait_for 10 grep -q "registered" "$T/r4.out"
ok $? "a job from a folder about to go is registered"
rmdir "$T/gone"
lent yes 127.0.0.2 127.0.0.3
wait_for 20 ended $R4
ok $? "it ends within 20 s"
wait "$R4"
exit_is $? 1 "with exit 1"
contains "$T/r4.out" "ends: working folder $T/gone does not exist on node 127\.0\.0\.[23] " \
    "saying which folder is missing where"
[ "$(grep -c 'does not exist on node' "$T/r4.out")" -le 3 ]
ok $? "the job was not relaunched over and over"
finish
