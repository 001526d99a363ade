#!/bin/bash
# Jobs end cleanly:
#  1. a description request that a node repeats (its answers lost, as
#     tests/tools/desc_req does) gets the same task, and that task,
#     whose worker never starts, is taken back: a job without --tasks
#     still ends once its real instance has;
#  2. a CilkRun whose broker does not answer in time (stopped, so its
#     registrations queue up) leaves no job behind once the broker reads
#     them: they carry no cookie, so none registers a job (and the job
#     manager that gave up withdrew whatever it might have).
# ports: 18540-18599
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=18540
JM=127.0.0.1:18560
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
state_is() { "$BIN/CilkNodes" | grep -Eq "127\.0\.0\.2 +$1 "; }
ended() { ! kill -0 "$1" 2>/dev/null; }
wait_for 15 state_is idle
ok $? "the node is idle"

# 1. A node asks four times, hears every answer, starts nothing.
echo idletime=0 >"$D/nodes/127.0.0.2/sensors"
wait_for 15 state_is busy
ok $? "the node's owner is back"
cd "$T" || exit 1
start r1 "$BIN/CilkRun" -o listen=$JM -t 90 -- sh -c 'echo real instance'
R1=$LAST_PID
wait_for 10 grep -q "job [0-9]* registered" "$T/r1.out"
ok $? "the job is registered"
JOB=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/r1.out" | head -1)
"$TOOLS/desc_req" "$D/cilknow.conf" $JM "$JOB" 127.0.0.9 4 >"$T/dr.out" 2>"$T/dr.err"
exit_is $? 0 "a pretend node gets the description"
[ "$(wc -l <"$T/dr.out")" -eq 4 ] &&
    [ "$(sort -u "$T/dr.out" | wc -l)" -eq 1 ]
ok $? "four requests, one task: $(sort -u "$T/dr.out" | tr '\n' ' ')"
echo idletime=1000000 >"$D/nodes/127.0.0.2/sensors"
wait_for 20 grep -q "^\[127.0.0.2\] real instance" "$T/r1.out"
ok $? "the real node runs its instance"
wait_for 60 ended $R1
ok $? "the job ends though the pretend node never started its task"
wait "$R1"
exit_is $? 0 "with exit 0"
contains "$T/r1.out" "task [0-9]+ on 127\.0\.0\.9: no word of it from its node; counted as lost" \
    "the task that never started is counted as lost"
contains "$T/r1.out" "ends: every instance ended" "and the job says it ended"

# 2. A broker that reads its mail too late.
K=$T/k
mkdir "$K" && keys_and_conf "$K" || { ok 1 "keys"; finish; exit 1; }
BR=127.0.0.1:18580
start broker "$SBIN/CilkJobBroker" -f -c "$K/cilknow.conf" \
    -o run_dir="$K/run" -o broker=$BR
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$K/cilknow.conf" -n 1 -W 0.2 $BR
ok $? "the broker answers pings"
# The engine reads the mail (the parent keeps privileges: 0950).
ENGINE=$(pgrep -P "$BROKER")
[ -n "$ENGINE" ]
ok $? "the broker's engine is $ENGINE"
kill -STOP "$ENGINE"
"$BIN/CilkRun" -c "$K/cilknow.conf" -b $BR -- true >"$T/r2.out" 2>&1
exit_is $? 3 "CilkRun times out"
contains "$T/r2.out" "did not answer within" "and says so"
kill -CONT "$ENGINE"
# Its queue is read in order: a ping answered after it was read it all.
wait_for 10 "$BIN/CilkPing" -c "$K/cilknow.conf" -n 1 -W 0.2 $BR
ok $? "the broker reads the queued registrations, and answers again"
# A registration counts only with the cookie the broker gave its address
# (issue 27): the ones queued had none, and their sender is gone.
[ "$(grep -c "registered by ann" "$T/broker.out")" -eq 0 ]
ok $? "none of them registered a job ($(grep -c "registered by ann" "$T/broker.out") registered)"
nojobs() { [ "$("$BIN/CilkPs" -c "$K/cilknow.conf" -b $BR | tail -n +2 | wc -l)" -eq 0 ]; }
wait_for 10 nojobs
ok $? "and CilkPs lists no job"
finish
