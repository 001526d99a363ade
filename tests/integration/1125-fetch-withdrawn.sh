#!/bin/bash
# A processor that stops wanting the task it asked for (its owner came
# back while it fetched the job's description, or the job manager did
# not answer in time) says so to the job manager at once (DESC_REFUSED
# of kind "withdrawn"): the task the job manager handed it runs
# elsewhere now, not after the reclaim (3 register intervals + 30 s =
# 45 s here), and the node is not given up.  Seen once in 1000-hostile:
# a job waited 33 s for a task its node had dropped when its owner came
# back 2 ms after the assignment.
#
# To make the crossing certain, the job manager is stopped (SIGSTOP)
# while 127.0.0.3 is assigned the job and fetches it: the fetch is
# still unanswered when the owner returns.  On SIGCONT the job manager
# reads the fetch (and hands out a task) and then the withdrawal.
# ports: 20190-20194
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
B=127.0.0.3
export CILKNOW_SBIN=$SBIN
"$BIN/CilkLocal" start -n 2 -d "$D" -p 20190 -o register_interval=5 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '[ -n "${RUN:-}" ] && kill -CONT "$RUN" 2>/dev/null
    "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"
echo idletime=0 >"$D/nodes/$B/sensors"
wait_for 15 nodes_are busy 1
ok $? "$B's owner is at it"

cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
sleep 1
exit 0
EOS
chmod 755 "$T/task.sh"
start run "$BIN/CilkRun" -t 40 --tasks 3 -- sh "$T/task.sh"
RUN=$LAST_PID
ran_on() { grep -q "^\[[0-9.]*\] task [0-2] attempt 1 on $1" "$T/run.out"; }
wait_for 20 ran_on 127.0.0.2
ok $? "the job runs on 127.0.0.2"

kill -STOP "$RUN"
ok $? "its job manager (pid $RUN) stopped"
echo idletime=1000000 >"$D/nodes/$B/sensors"
wait_for 20 grep -q "assigned job [0-9]* of .* to processor" "$D/nodes/$B/log"
ok $? "$B's owner leaves: it is assigned the job and fetches it"
echo idletime=0 >"$D/nodes/$B/sensors"
wait_for 20 grep -Eq "withdraws its fetch: (the owner is back|its job manager did not answer in time)" \
    "$D/nodes/$B/log"
ok $? "$B's owner is back before an answer: it withdraws its fetch"
echo "# $(grep -o "withdraws its fetch: .*" "$D/nodes/$B/log" | head -n 1)"
kill -CONT "$RUN"
ok $? "the job manager goes on"

t0=${EPOCHREALTIME/,/.}
wait "$RUN"
rc=$?
RUN=
echo "# the job took $(awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.1f", b - a }') s more"
exit_is $rc 0 "the job ends 0 within its 40 s (the reclaim would take 45)"
contains "$T/run.out" "task [0-2] on $B(/0)? withdrawn: (the owner is back|its job manager did not answer in time); it runs again" \
    "the job manager takes the task back at once and says why"
[ "$(grep -c "^\[[0-9.]*\] task [0-2] attempt [0-9]* on " "$T/run.out")" -eq 3 ] &&
    ! grep -q "^\[[0-9.]*\] task .* on $B" "$T/run.out"
ok $? "3 tasks ran, none on $B"
! grep -Eq "node $B: |no word of it from its node|given up" "$T/run.out"
ok $? "$B is not given up, and no task was lost"
"$BIN/CilkNodes" -R >"$T/down.out" 2>&1
! grep -q "$B" "$T/down.out"
ok $? "nor counted as a fault of $B's (CilkNodes -R)"
if [ "$TAP_FAILED" -ne 0 ]; then
	sed 's/^/# run: /' "$T/run.out" | tail -20
	diag_cluster "$D"
fi
finish
