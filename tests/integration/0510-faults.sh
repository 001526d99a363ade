#!/bin/bash
# Faults on a CilkLocal cluster: the broker restarted under running jobs,
# a node manager restarted (its workers re-adopted), a node that
# vanishes, a job manager killed, forged job descriptions, and a worker
# that ignores SIGQUIT.
# ports: 17470-17479
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17470
# An interval of 2 s: 3 intervals (what a silent daemon is given) hold
# on a machine busy with other tests.
"$BIN/CilkLocal" start -n 4 -d "$D" -p $PORT -o register_interval=2 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf

nodes_in() { "$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l; }
nodes_are() { test "$(nodes_in "$1")" -eq "$2"; }
pid_of() { awk -v r="$1" -v a="$2" '$1 == r && index($3, a) == 1 { print $2 }' "$D/pids"; }
# Workers are "sh -c ... MARK" processes; the sh stays (no exec).
MARK=cilknow-fault-$$
workers() { shells "^sh -c .*$MARK" | sort; }
workers_are() { test "$(workers | wc -l)" -eq "$1"; }
workers_at_least() { test "$(workers | wc -l)" -ge "$1"; }
wait_for 15 nodes_are idle 4
ok $? "4 idle nodes"

start run1 "$BIN/CilkRun" -- sh -c "sleep 300; : $MARK"
RUN1=$LAST_PID
wait_for 20 nodes_are running 4
ok $? "the job runs on 4 nodes"
# A node is running once its launch pad is up, a moment before the
# worker's exec: the list is taken when all 4 are there.
wait_for 10 workers_are 4
ok $? "4 workers run ($(workers | wc -l))"
before=$(workers)

# 1. The broker dies and comes back: state is rebuilt, nobody stopped.
BROKER=$(pid_of broker 127.0.0.1)
kill -KILL "$BROKER"
"$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" -o run_dir="$D/broker" \
    >"$T/broker2.log" 2>&1 &
PIDS="$PIDS $!"
# A young broker lists no job it has not heard again, and node managers
# stop no worker for that until it is 3 intervals old (6 s; its pushes
# say its age): the window in which a wrong stop would show ends 7 s
# after its start, whatever the waits below took.
young_end=$(( $(date +%s%N) + 7000000000 ))
wait_for 20 nodes_are running 4
ok $? "after a broker restart CilkNodes shows 4 running nodes again"
wait_for 20 sh -c "'$BIN/CilkPs' | grep -Eq '^ *1 .* 4 +- +1 '"
ok $? "and CilkPs shows job 1 with its 4 nodes"
# No event says "nothing was stopped": what is left of the window is
# waited out (a wrong stop shows by its end).
left=$(( (young_end - $(date +%s%N)) / 1000000 ))
[ "$left" -le 0 ] || sleep "$((left / 1000)).$(printf %03d $((left % 1000)))"
[ "$(workers)" = "$before" ]
ok $? "no worker was stopped or restarted"
# what a failure needs for a post-mortem: who stopped or started what
[ "$TAP_FAILED" -eq 0 ] || {
	echo "# workers before: $(echo $before) after: $(echo $(workers))"
	grep -h -E 'stop|start|silent|gone|ended|known again|assign' \
	    "$T/broker2.log" "$D"/nodes/*/log 2>/dev/null | tail -n 25 |
	    sed 's/^/#   | /'
}

# 2. A node manager dies and restarts: its worker is adopted, not killed.
NM=$(pid_of node 127.0.0.2)
kill_nm "$NM"
ok $? "the node manager is gone, its engine too"
[ "$(workers)" = "$before" ]
ok $? "the worker outlives its node manager"
CILKNOW_SBIN=$SBIN "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=127.0.0.2:$((PORT + 1)) -o state_dir="$D/nodes/127.0.0.2/state" \
    -o run_dir="$D/nodes/127.0.0.2/run" \
    -o sensors=file:"$D/nodes/127.0.0.2/sensors" >"$T/nm2.log" 2>&1 &
PIDS="$PIDS $!"
wait_for 20 grep -q "adopted worker" "$T/nm2.log"
ok $? "the restarted node manager adopts the running worker"
wait_for 20 sh -c "'$BIN/CilkNodes' | grep -Eq '127\.0\.0\.2 +running +[0-9/]+ +1 '"
ok $? "and reports it running job 1"
[ "$(workers)" = "$before" ]
ok $? "still the same workers"

# 3. A node vanishes: its node manager and its worker, SIGKILLed.
NM=$(pid_of node 127.0.0.5)
for p in $(pgrep -f "$D/nodes/127.0.0.5"); do kill -KILL "$p"; done
kill -KILL "$NM" 2>/dev/null
for p in $(workers); do	# the worker's whole process group
	grep -q "127.0.0.5" /proc/"$p"/environ 2>/dev/null && kill -KILL -- -"$p"
done
wait_for 20 sh -c "'$BIN/CilkNodes' | grep -Eq '127\.0\.0\.5 +down '"
ok $? "a vanished node is listed as down after 3 intervals"
"$BIN/CilkNodes" -R | grep -Eq '127\.0\.0\.5 +down +- +[0-9T:-]+ +silent since '
ok $? "CilkNodes -R says since when it is silent"
wait_for 20 sh -c "'$BIN/CilkPs' | grep -Eq '^ *1 .* 3 +- +1 '"
ok $? "and its job counts 3 nodes"

# 4. The job manager is killed: its workers stop, the job goes away.
kill -KILL "$RUN1"
wait_for 25 workers_are 0
ok $? "every worker of a killed job manager is stopped"
wait_for 20 sh -c "test \$('$BIN/CilkPs' | wc -l) -eq 1"
ok $? "and the job leaves CilkPs"

# 5. Forged descriptions: signed by another user's key, or not at all.
"$BIN/CilkKey" generate-user -u mallory "$T/mallory.id" >/dev/null
rm -f /tmp/fake_jobmgr_ran
"$TOOLS/fake_jobmgr" "$D/cilknow.conf" other-key 4 "$T/mallory.id" \
    >"$T/fake1.out" 2>&1
contains "$T/fake1.out" "forged [1-9]" "nodes asked the forger for its job"
"$TOOLS/fake_jobmgr" "$D/cilknow.conf" unsigned 4 >"$T/fake2.out" 2>&1
contains "$T/fake2.out" "forged [1-9]" "and the unsigned one too"
[ ! -e /tmp/fake_jobmgr_ran ]
ok $? "nothing was started"
grep -h "description refused" "$D"/nodes/*/log "$T/nm2.log" >"$T/refused" 2>/dev/null
contains "$T/refused" "bad signature|no public key" \
    "the refusal is logged with its reason"
contains "$T/refused" "\(([2-9]|[1-9][0-9]+) refused so far\)" \
    "and counted"

# 6. A worker that ignores SIGQUIT is SIGKILLed after the grace.
# Its own mark: a worker of an earlier job still being stopped is not it.
start run2 "$BIN/CilkRun" -n 1 -- sh -c "trap '' QUIT; sleep 300; : $MARK-stubborn"
RUN2=$LAST_PID
stubborn() { shells "^sh -c .*$MARK-stubborn"; }
# Found as soon as it is exec'd, before its trap: the owner's return
# must wait until the kernel says SIGQUIT (bit 3) is ignored.
quit_ignored() {
	_p=$(stubborn | head -1) && _ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' \
	    "/proc/$_p/status" 2>/dev/null) && [ -n "$_ign" ] &&
	    [ $((0x$_ign & 4)) -ne 0 ]
}
wait_for 20 quit_ignored
ok $? "a worker that ignores SIGQUIT runs"
stubborn=$(stubborn | head -1)
node=$(tr '\0' '\n' </proc/"$stubborn"/environ | sed -n 's/^CILKNOW_NODE=//p')
echo idletime=0 >"$D/nodes/$node/sensors"
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_for 20 gone "$stubborn"
ok $? "its owner returns: it is SIGKILLed after the grace"
# 127.0.0.2's node manager was restarted above: its log is nm2.log now.
logs="$D/nodes/$node/log"
[ "$node" = 127.0.0.2 ] && logs="$logs $T/nm2.log"
# shellcheck disable=SC2086
wait_for 20 grep -q "worker .* killed by signal 9" $logs
ok $? "its node manager logs that it was killed by signal 9" ||
    grep -h -E "worker|stubborn|SIGKILL|exited" $logs | tail -n 20 | sed 's/^/#   | /'
kill -INT "$RUN2"; wait "$RUN2" 2>/dev/null
finish
