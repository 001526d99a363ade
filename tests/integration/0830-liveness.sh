#!/bin/bash
# A worker is lost only when it is: tasks far longer than the loss
# timeout finish without a worker being given up (the heartbeat comes
# from a thread); a worker stopped past the timeout is confirmed
# stopped by its node manager, fenced, its work redone, and on SIGCONT
# it joins again as a new worker; a SIGKILLed one is confirmed gone;
# the answers stay right and the jobs end (cilknow(3), CilkChouse(8)).
# cpu: parallel programs whose workers hang and are given up
# ports: 18700-18719
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=18700
"$BIN/CilkLocal" start -n 4 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=3 $BUSY_MACHINE_WORKERS >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4"
trap '[ -n "$STOPPED" ] && kill -CONT $STOPPED 2>/dev/null;
    "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1

nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
ended() { ! kill -0 "$1" 2>/dev/null; }
joined() { test "$(grep -c "joined from 127" "$1")" -ge "$2"; }
pid_joined_twice() { test "$(grep -c "joined from 127.*(pid $1)" "$T/q1.out")" -ge 2; }
wait_for 15 nodes_are idle 4
ok $? "4 idle nodes"

# 1. Six tasks of 5 s each, the clearinghouse's timeout 3 s.
start s1 "$BIN/../tests/slowtasks" 6 5
S=$LAST_PID
wait_for 20 joined "$T/s1.out" 2
ok $? "workers joined the job of long tasks"
wait_for 90 ended $S
ok $? "the job of 5-second tasks ends"
answer_is "$T/s1.out" 21 "and its answer is 1+2+...+6"
! grep -q "its work is redone" "$T/s1.out"
ok $? "no worker was given up for lost"
[ $? -eq 0 ] || sed 's/^/#   | /' "$T/s1.out" | grep -E "lost|joined" | head
wait_for 20 nodes_are idle 4
ok $? "the nodes are idle again"

# 2. A worker stopped (SIGSTOP) past the timeout, then continued.
# (-d 2500: about 20 s of work for 4 workers, several times what the
# stop, the 3 s timeout, SIGCONT and the second join take.)
start q1 "$BIN/queens" -d 2500 12
Q=$LAST_PID
wait_for 20 joined "$T/q1.out" 3
ok $? "3 workers joined queens"
victim=$(worker_pids "$T/q1.out" | head -1)
[ -n "$victim" ] && kill -STOP "$victim"
ok $? "SIGSTOP to worker pid $victim"
STOPPED=$victim
wait_for 20 grep -q "is stopped, its node says; its work is redone" "$T/q1.out"
ok $? "its node confirms it stopped, and its work is redone"
kill -CONT "$victim"
STOPPED=
wait_for 20 pid_joined_twice "$victim"
ok $? "continued, it joins again as a new worker"
wait_for 120 ended $Q
ok $? "queens ends"
answer_is "$T/q1.out" 14200 "and its answer is right (14200)"
wait_for 20 nodes_are idle 4
ok $? "the nodes are idle again"

# 3. A worker SIGKILLed: its node says it is gone.
start q2 "$BIN/queens" -d 2500 12
Q=$LAST_PID
wait_for 20 joined "$T/q2.out" 3
ok $? "3 workers joined queens again"
victim=$(worker_pids "$T/q2.out" | head -1)
[ -n "$victim" ] && kill -KILL "$victim"
ok $? "SIGKILL to worker pid $victim"
wait_for 20 grep -q "is gone, its node says; its work is redone" "$T/q2.out"
ok $? "its node confirms it is gone, and its work is redone"
wait_for 120 ended $Q
ok $? "queens ends"
answer_is "$T/q2.out" 14200 "and its answer is right (14200)"
finish
