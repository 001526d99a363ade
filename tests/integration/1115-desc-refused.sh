#!/bin/bash
# A description the node's engine itself cannot take reaches the job
# manager at once (DESC_REFUSED, issue 28): on a CilkLocal cluster of
# three nodes, 127.0.0.3's node manager runs again with a user_keys
# folder that has no key of the job's user, so the job manager's
# answers do not open there.  After its fetch's retries the node tells
# the job manager why; the job manager gives the node up as for a
# node-side failure and the task runs elsewhere at once, not after the
# reclaim (3 register intervals + 30 s = 45 s here): the job (--tasks 6,
# time limit 40 s) ends 0, CilkRun names the node and the reason once,
# and nothing is counted against a task.
# ports: 20535-20539
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
BAD=127.0.0.3
export CILKNOW_SBIN=$SBIN
PORT=20535
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=5 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 3
ok $? "3 idle nodes"

# Its node manager again, as CilkLocal ran it, without the users' keys.
NM=$(awk -v a="$BAD" '$1 == "node" && index($3, a) == 1 { print $2 }' "$D/pids")
mapfile -d '' ARGS <"/proc/$NM/cmdline"
ARGS[0]=$SBIN/CilkNodeManager
mkdir -p "$T/nokeys"
stop "$NM"
wait_for 10 sh -c "! kill -0 $NM 2>/dev/null"
ok $? "node manager of $BAD (pid $NM) stopped"
start nm3 "${ARGS[@]}" -o user_keys="$T/nokeys"
wait_for 30 nodes_are idle 3
ok $? "it runs again, with no user's key, and the 3 nodes are idle"

cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
sleep 0.5
exit 0
EOS
chmod 755 "$T/task.sh"
t0=$(date +%s.%N)
"$BIN/CilkRun" -t 40 --tasks 6 -- sh "$T/task.sh" >"$T/r.out" 2>"$T/r.err"
rc=$?
t1=$(date +%s.%N)
echo "# the job took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
exit_is $rc 0 "the job ends 0 within 40 s (the reclaim would take 45)"
[ "$(grep -c "^\[[0-9.]*\] task [0-5] attempt 1 on " "$T/r.out")" -eq 6 ] &&
    ! grep -q " on $BAD\$" "$T/r.out"
ok $? "each task ran once, as attempt 1, none on $BAD"
contains "$T/r.err" "node $BAD: the job manager's answers do not open here: no key for user $(id -un) in user_keys opens them; task [0-5] (runs elsewhere|waits for another node)" \
    "CilkRun names the node and the reason"
[ "$(grep -c "node $BAD: " "$T/r.err")" -eq 1 ]
ok $? "once"
! grep -Eq "failure [0-9]+ of|given up after" "$T/r.err"
ok $? "not counted as the program's failure"
contains "$T/nm3.out" "not started: the job manager's answers do not open here" \
    "the node says why"
if [ "$TAP_FAILED" -ne 0 ]; then
	sed 's/^/# err: /' "$T/r.err" | tail -20
	tail -20 "$T/nm3.out" | sed 's/^/# nm3: /'
fi
finish
