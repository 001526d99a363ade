#!/bin/bash
# Automatic recovery of a job whose root's workstation crashed, on a
# 4-node CilkLocal cluster: a root with a checkpoint and a home node
# manager (CILKNOW_HOME) backs its job up there with signed ROOT_BACKUPs;
# when the root, its clearinghouse and its job manager are SIGKILLed
# together, the home node manager restarts "queens -Recover=CKPT 12"
# itself through a launch pad, and the answer is still 14200.  Forged
# backups are refused and start nothing; a job that ends normally sends
# ROOT_DONE and is not restarted.
# cpu: a parallel program's root restarted, under AddressSanitizer
# ports: 17860-17879
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17860
HOME_NODE=127.0.0.2:$((PORT + 1))
NLOG=$D/nodes/127.0.0.2/log
NSTATE=$D/nodes/127.0.0.2/state
"$BIN/CilkLocal" start -n 4 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=3 -o timeout=2 $BUSY_MACHINE_WORKERS >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1

nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
logged() { grep -Eq "$1" "$NLOG"; }
ckpt_counts() {
	[ -s "$1" ] && [ "$(od -An -tx1 -j8 -N8 "$1" | tr -d ' \n')" != 0000000000000000 ]
}
crash() {	# crash PID : the root, its clearinghouse and its job manager
	local ch jm
	ch=$(pgrep -P "$1" -f CilkChouse)
	jm=$([ -n "$ch" ] && pgrep -P "$ch" -f CilkJobManager)
	kill -KILL "$1" $ch $jm 2>/dev/null
	wait "$1" 2>/dev/null
	[ -n "$ch" ] && [ -n "$jm" ]
}
# out_of WORKER : the restarted root's standard output on the home node
out_of() { echo "$NSTATE/workers/$1/out.log"; }
restarted_id() {	# the launch pad id of the restart naming $1
	grep -E "restarted .*-Recover=$1" "$NLOG" | tail -1 |
	    sed -E 's/.*worker (r[0-9a-f]+-[0-9a-f]+),.*/\1/'
}
answer_in() { grep -Eq '^[0-9]+$' "$1" 2>/dev/null; }
no_records() { [ -z "$(ls -A "$NSTATE/roots" 2>/dev/null)" ]; }
wait_for 15 nodes_are idle 4
ok $? "4 idle nodes"

# 1. Forged backups: another user's key, a changed byte.  Then an honest
# one, for a process that dies: it is restarted, so the forged ones
# (whose processes died first) would have been too.
"$BIN/CilkKey" generate-user -u mallory "$T/mallory.id" >/dev/null
touch "$T/forged.ckpt" "$T/honest.ckpt"
sleep 600 &
S1=$!
PIDS="$PIDS $S1"
"$TOOLS/fake_root" "$CILKNOW_CONF" other-key "$HOME_NODE" "$S1" \
    "$T/forged.ckpt" /bin/echo forged -- "$T/mallory.id" >"$T/f1.out" 2>&1
exit_is $? 0 "a ROOT_BACKUP signed by mallory's key is sent"
"$TOOLS/fake_root" "$CILKNOW_CONF" tampered "$HOME_NODE" "$S1" \
    "$T/forged.ckpt" /bin/echo forged >"$T/f2.out" 2>&1
exit_is $? 0 "a tampered ROOT_BACKUP is sent"
wait_for 10 logged "ROOT_BACKUP from .* refused: (bad signature|no public key|malformed)"
ok $? "the forged backups are refused, with the reason logged"
wait_for 10 logged "ROOT_BACKUP from .* refused: .*\(2 refused so far\)"
ok $? "both of them"
{ kill -KILL "$S1"; wait "$S1"; } 2>/dev/null
# Another user's process, named in a backup signed by this user's key:
# the parent, asked by the engine (which sees no /proc), says so.
if [ "$(id -u)" = 0 ]; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 600 &
	S0=$!
	PIDS="$PIDS $S0"
	wait_for 5 sh -c "[ \"\$(stat -c %U /proc/$S0)\" = nobody ]"
	"$TOOLS/fake_root" "$CILKNOW_CONF" honest "$HOME_NODE" "$S0" \
	    "$T/other.ckpt" /bin/echo other >"$T/f0.out" 2>&1
	wait_for 10 logged "ROOT_BACKUP from .* refused: pid $S0 is no process of root on this machine"
	ok $? "a backup naming nobody's process is refused"
	{ kill -KILL "$S0"; wait "$S0"; } 2>/dev/null
else
	ok 0 "# SKIP not root: no process of another user to name"
fi
sleep 600 &
S2=$!
PIDS="$PIDS $S2"
"$TOOLS/fake_root" "$CILKNOW_CONF" honest "$HOME_NODE" "$S2" \
    "$T/honest.ckpt" /bin/echo honest >"$T/f3.out" 2>&1
exit_is $? 0 "an honest ROOT_BACKUP is sent"
wait_for 10 logged "root of .* backed up: it recovers from $T/honest.ckpt"
ok $? "the honest backup is kept"
{ kill -KILL "$S2"; wait "$S2"; } 2>/dev/null
wait_for 15 logged "restarted .*-Recover=$T/honest.ckpt"
ok $? "its process gone, the node manager restarts its command"
H=$(restarted_id "$T/honest.ckpt")
wait_for 10 grep -q "^-Recover=$T/honest.ckpt honest$" "$(out_of "$H")"
ok $? "which ran, as the user, in a launch pad"
logged "forged|restarted .*-Recover=$T/forged.ckpt"
ok $((1 - $?)) "nothing forged was started"
wait_for 10 logged "forgotten: the restarted root exited 0"
ok $? "the record is forgotten once the restarted command ends"

# 2. A job that ends normally: ROOT_DONE, nothing restarted.
CILKNOW_HOME=$HOME_NODE CILKNOW_CHECKPOINT=$T/n.ckpt "$BIN/queens" 8 \
    >"$T/n.out" 2>&1
exit_is $? 0 "queens 8 with a home node"
wait_for 10 logged "backed up: it recovers from $T/n.ckpt"
ok $? "its root backed its job up"
wait_for 10 logged ", $T/n.ckpt\): forgotten: (the job ended|its checkpoint is gone)"
ok $? "and the home node forgot it when it ended"
logged ", $T/n.ckpt\): forgotten: the job ended"
ok $? "on its ROOT_DONE"
sleep 2.5	# two looks at the roots: a wrong restart would show
logged "restarted .*-Recover=$T/n.ckpt"
ok $((1 - $?)) "it was not restarted"

# 2b. A job the user ends (SIGTERM, as ^C): forgotten, not restarted;
# its checkpoint stays for a recovery by hand.
wait_for 30 nodes_are idle 4
CILKNOW_HOME=$HOME_NODE CILKNOW_CHECKPOINT=$T/i.ckpt "$BIN/queens" \
    -d 1000 12 >"$T/i.out" 2>&1 &
I=$!
PIDS="$PIDS $I"
wait_for 30 ckpt_counts "$T/i.ckpt"
ok $? "an interrupted job had checkpointed"
wait_for 10 logged "root of .* \(pid $I\) backed up: it recovers from $T/i.ckpt"
ok $? "and was backed up"
kill -TERM "$I"
wait "$I" 2>/dev/null
exit_is $? 143 "SIGTERM ends its root as before"
wait_for 10 logged ", $T/i.ckpt\): forgotten: the job ended"
ok $? "the home node forgets it"
sleep 2.5	# two looks at the roots
logged "restarted .*-Recover=$T/i.ckpt"
ok $((1 - $?)) "and does not restart it"
[ -s "$T/i.ckpt" ]
ok $? "its checkpoint stays"
rm -f "$T/i.ckpt"

# 3. The crash: the node manager restarts the root by itself.
wait_for 30 nodes_are idle 4
CILKNOW_HOME=$HOME_NODE CILKNOW_CHECKPOINT=$T/q.ckpt "$BIN/queens" \
    -d 1000 12 >"$T/q1.out" 2>&1 &
Q=$!
PIDS="$PIDS $Q"
wait_for 30 ckpt_counts "$T/q.ckpt"
ok $? "the clearinghouse checkpoints work that counted"
wait_for 10 logged "root of .* \(pid $Q\) backed up: it recovers from $T/q.ckpt"
ok $? "the root backed its job up on its home node"
crash $Q
ok $? "the root, its clearinghouse and its job manager are killed"
grep -Eq '^[0-9]+$' "$T/q1.out"
ok $((1 - $?)) "the crashed root printed no answer"
wait_for 15 logged "root of .* \(pid $Q\) is gone: restarted .*-Recover=$T/q.ckpt"
ok $? "the home node manager restarts it with -Recover"
R=$(restarted_id "$T/q.ckpt")
wait_for 180 answer_in "$(out_of "$R")"
ok $? "the restarted root prints an answer"
if [ "$(grep -E '^[0-9]+$' "$(out_of "$R")" | tail -1)" = 14200 ]; then
	ok 0 "and it is 14200"
else
	ok 1 "and it is 14200"
	sed 's/^/#   | /' "$(out_of "$R")" "$NSTATE/workers/$R/err.log" | tail -30
fi
grep -Eq "recovering from $T/q.ckpt: sum [1-9][0-9]* so far" \
    "$NSTATE/workers/$R/err.log"
ok $? "it resumed with work already counted"
wait_for 15 logged ", $T/q.ckpt\): forgotten: (the job ended|the restarted root exited 0)"
ok $? "the record is forgotten when the recovered job ends"
wait_for 10 no_records
ok $? "no record is left in state_dir/roots"
[ ! -e "$T/q.ckpt" ]
ok $? "a finished job leaves no checkpoint"

# 4. The machine crashed: the node manager goes down with the root, and
# when it comes back its record in state_dir/roots restarts the job.
wait_for 30 nodes_are idle 4
CILKNOW_HOME=$HOME_NODE CILKNOW_CHECKPOINT=$T/m.ckpt "$BIN/queens" \
    -d 1000 12 >"$T/m1.out" 2>&1 &
M=$!
PIDS="$PIDS $M"
wait_for 30 ckpt_counts "$T/m.ckpt"
ok $? "a second job checkpoints"
wait_for 10 logged "root of .* \(pid $M\) backed up: it recovers from $T/m.ckpt"
ok $? "and is backed up on its home node"
NM=$(awk '$1 == "node" && $3 == "'"$HOME_NODE"'" { print $2 }' "$D/pids")
kill_nm "$NM"
crash $M
ok $? "the home node manager, the root, its clearinghouse and its job manager die"
CILKNOW_SBIN=$SBIN "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=$HOME_NODE -o state_dir="$NSTATE" \
    -o run_dir="$D/nodes/127.0.0.2/run" \
    -o sensors=file:"$D/nodes/127.0.0.2/sensors" >>"$NLOG" 2>&1 &
PIDS="$PIDS $!"
wait_for 10 logged "root of .* \(pid $M\): backup kept, recovers from $T/m.ckpt"
ok $? "the restarted node manager reads its record back"
wait_for 15 logged "root of .* \(pid $M\) is gone: restarted .*-Recover=$T/m.ckpt"
ok $? "and restarts the root with -Recover"
R=$(restarted_id "$T/m.ckpt")
wait_for 180 answer_in "$(out_of "$R")"
ok $? "the restarted root prints an answer"
[ "$(grep -E '^[0-9]+$' "$(out_of "$R")" | tail -1)" = 14200 ]
ok $? "and it is 14200"
wait_for 15 logged ", $T/m.ckpt\): forgotten: (the job ended|the restarted root exited 0)"
ok $? "the record is forgotten when it ends"
[ ! -e "$T/m.ckpt" ]
ok $? "and its checkpoint is gone"
# Both restarted roots have ended: their launch pads are gone too (a
# root's used to linger forever, one more at every restart).
no_root_pads() { ! "$TOOLS/lpad_driver" list "$D/nodes/127.0.0.2/run" | grep -q '^r'; }
wait_for 15 no_root_pads
ok $? "no launch pad of a restarted root is left on the home node" ||
    "$TOOLS/lpad_driver" list "$D/nodes/127.0.0.2/run" | sed 's/^/#   | /'
[ "$TAP_FAILED" -gt 0 ] && grep -E 'root|ROOT' "$NLOG" | sed 's/^/#   nm | /' | tail -30
finish
