#!/bin/bash
# Rotating the cluster key while a job runs, by the procedure of
# CilkKey(1) and cilknow(7) (KEY ROTATION / Rotating keys), on a 2-node
# CilkLocal cluster: the job's output goes on reaching CilkRun after the
# daemons took the new key, the job ends by itself and CilkRun returns
# its exit status; its job manager is not restarted (it reads
# cluster.pub again when a daemon signs with a key it does not know).
# And -n of the broker and the node manager fails, naming both ids,
# when cluster.pub and cluster.key do not hold the same current key.
# ports: 18000-18019
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
"$BIN/CilkLocal" start -n 2 -d "$D" -p 18000 -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
C=$D/cilknow.conf
idle() { test "$("$BIN/CilkNodes" -s idle | tail -n +2 | wc -l)" -eq 2; }
wait_for 15 idle
ok $? "two idle nodes"

# Each instance prints the word in PHASE every 0.2 s until STOP exists.
PHASE=$T/phase STOP=$T/stop
echo before >"$PHASE"
start run "$BIN/CilkRun" -- sh -c '
	while [ ! -e "$1" ]; do echo "tick $(cat "$2")"; sleep 0.2; done
	echo "done on $CILKNOW_NODE"' sh "$STOP" "$PHASE"
RUN=$LAST_PID
ticks() { test "$(grep -c "^\[127\.0\.0\.$1\] tick $2$" "$T/run.out")" -ge 3; }
wait_for 20 ticks 2 before && wait_for 10 ticks 3 before
ok $? "the job's output from both nodes reaches CilkRun"
# CilkRun became the job manager (exec): one process, never restarted.
tr '\0' ' ' <"/proc/$RUN/cmdline" | grep -q "CilkJobManager"
ok $? "CilkRun is now its job manager (pid $RUN)"
id_of() { "$BIN/CilkKey" show "$1" | awk '$1 == "current" { print $5 }'; }
OLD=$(id_of "$D/cluster.key")

# The procedure, step by step.
# 1. Rotate (this also rewrites cluster.pub with both public keys).
"$BIN/CilkKey" rotate "$D/cluster.key" >"$T/rotate.out" 2>&1
exit_is $? 0 "1. CilkKey rotate cluster.key"
NEW=$(id_of "$D/cluster.key")
[ "$NEW" != "$OLD" ] && [ "$(id_of "$D/cluster.pub")" = "$NEW" ]
ok $? "   cluster.key and cluster.pub now hold $NEW (was $OLD)"
# 2. Copying them to the other machines: CilkLocal's daemons share them.
# 3. Check every daemon's configuration and keys.
"$SBIN/CilkJobBroker" -n -c "$C" >"$T/n-broker.out" 2>&1
exit_is $? 0 "3. CilkJobBroker -n"
"$SBIN/CilkNodeManager" -n -c "$C" >"$T/n-node.out" 2>&1
exit_is $? 0 "   CilkNodeManager -n"
# 4. Reload every daemon: SIGHUP to the pids of their pid files.
for p in $(awk '$1 == "broker" || $1 == "node" { print $2 }' "$D/pids"); do
	kill -HUP "$p"
done
reloaded() { grep -q "reloaded the configuration and keys" "$1"; }
wait_for 10 reloaded "$D/broker.log" &&
    wait_for 10 reloaded "$D/nodes/127.0.0.2/log" &&
    wait_for 10 reloaded "$D/nodes/127.0.0.3/log"
ok $? "4. SIGHUP: the broker and both node managers reloaded"

# The daemons now sign with the new key; the job goes on.
echo after >"$PHASE"
wait_for 20 ticks 2 after && wait_for 10 ticks 3 after
ok $? "output written after the rotation still reaches CilkRun"
tr '\0' ' ' <"/proc/$RUN/cmdline" | grep -q "CilkJobManager"
ok $? "from the same job manager"
touch "$STOP"
ended() { ! kill -0 "$RUN" 2>/dev/null; }
wait_for 30 ended
ok $? "the job ends by itself"
rc=124	# as timeout(1) would say, for a job that did not end
ended && { wait "$RUN"; rc=$?; }
exit_is $rc 0 "CilkRun returns the job's exit status"
[ "$(grep -c '^\[127\.0\.0\.[23]\] done on 127\.0\.0\.[23]$' "$T/run.out")" -eq 2 ]
ok $? "both instances' last lines arrived"
[ "$TAP_FAILED" -gt 0 ] && sed 's/^/#   | /' "$T/run.out" | tail -20

# -n: cluster.pub of another key than cluster.key.
"$BIN/CilkKey" generate-cluster "$T/other.key" >/dev/null
OTHER=$(id_of "$T/other.pub")
for d in CilkJobBroker CilkNodeManager; do
	"$SBIN/$d" -n -c "$C" -o cluster_pub="$T/other.pub" >"$T/mis.out" 2>&1
	exit_is $? 1 "$d -n with cluster.pub $OTHER and cluster.key $NEW"
	contains "$T/mis.out" "other\.pub.*$OTHER.*cluster\.key.*$NEW" \
	    "and names both files and ids"
done
finish
