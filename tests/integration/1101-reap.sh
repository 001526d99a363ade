#!/bin/bash
# Worker folders of launch pads that are gone are reaped when the node
# manager starts (reap.c): a guest worker's folder left by a crash or a
# reboot (its spec and environment, a stale socket, no process) is
# removed; a live launch pad and its folder are adopted as before; of
# restarted roots' folders without a launch pad, each user keeps only
# the 4 newest.  Needs root (the job runs as "daemon").
# ports: 20610-20619
. "$(dirname "$0")/lib.sh"
root_or_skip
unset CILKNOW_OWNER_RETURN
export CILKNOW_SBIN=$SBIN
D=$T/cluster
PORT=20610
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=2 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
NLOG=$D/nodes/127.0.0.2/log
NSTATE=$D/nodes/127.0.0.2/state
NRUN=$D/nodes/127.0.0.2/run
ALICE=daemon
"$BIN/CilkKey" generate-user -u $ALICE "$T/$ALICE.id" >/dev/null &&
    "$BIN/CilkKey" public "$T/$ALICE.id" >"$D/users/$ALICE.pub" &&
    chmod 644 "$D/users/$ALICE.pub" && reload_local "$D"
ok $? "$ALICE's key installed, the daemons reloaded"
mkdir "$T/work" && chmod 777 "$T/work"
cd "$T/work" || exit 1
node_is() {
	test "$("$BIN/CilkNodes" | awk '$2 == "127.0.0.2" { print $3 }')" = "$1"
}
wait_for 15 node_is idle
ok $? "the node is lent"

# A live worker: its launch pad must be adopted after the restart.
start live "$BIN/CilkRun" -o user_key="$T/$ALICE.id" -- sh -c \
    'echo up; exec sleep 120'
LIVE_RUN=$LAST_PID
wait_for 30 grep -q "up" "$T/live.out"
ok $? "a job runs on the node"
LIVE=$(ls "$NSTATE/workers" | grep '^j' | head -1)
[ -n "$LIVE" ] && [ -S "$NRUN/lpad/$LIVE.sock" ]
ok $? "its worker $LIVE has a folder and a launch pad socket"

# What a crash or a reboot leaves: a folder with the job's spec and
# environment, a socket nobody listens on, no process.
STALE=j4242-aabbccddeeff
mkdir -p "$NSTATE/workers/$STALE" &&
    echo "SECRET=hunter2" >"$NSTATE/workers/$STALE/spec" &&
    echo "some output" >"$NSTATE/workers/$STALE/out.log" &&
    : >"$NSTATE/workers/$STALE/pid" &&
    chown -R $ALICE "$NSTATE/workers/$STALE" &&
    chmod 700 "$NSTATE/workers/$STALE"
ok $? "a stale worker folder $STALE"
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])' "$NRUN/lpad/$STALE.sock"
[ -S "$NRUN/lpad/$STALE.sock" ]
ok $? "and its stale socket (nobody listens)"
# Six ended restarted roots of one user, no launch pad: 4 stay.
for i in 1 2 3 4 5 6; do
	r=rtest$i-a0b1c$i
	mkdir -p "$NSTATE/workers/$r" && echo "root $i" \
	    >"$NSTATE/workers/$r/out.log" && chown -R $ALICE \
	    "$NSTATE/workers/$r" && touch -d "@$((1700000000 + i * 60))" \
	    "$NSTATE/workers/$r" || break
done
ok $? "six ended roots' folders of $ALICE"

# The node manager restarts (SIGTERM: its workers go on).
NM=$(awk '$1 == "node" && $3 == "127.0.0.2:'$((PORT + 1))'" { print $2 }' \
    "$D/pids")
kill -TERM "$NM"
gone() { ! kill -0 "$1" 2>/dev/null; }
wait_for 15 gone "$NM"
ok $? "the node manager (pid $NM) stopped"
"$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=127.0.0.2:$((PORT + 1)) -o state_dir="$NSTATE" \
    -o run_dir="$NRUN" -o sensors=file:"$D/nodes/127.0.0.2/sensors" \
    >>"$NLOG" 2>&1 &
PIDS="$PIDS $!"
wait_for 15 grep -q "adopted worker $LIVE" "$NLOG"
ok $? "the restarted node manager adopts the live worker $LIVE"
[ -d "$NSTATE/workers/$LIVE" ] && [ -S "$NRUN/lpad/$LIVE.sock" ]
ok $? "its folder and socket stay"
[ ! -e "$NSTATE/workers/$STALE" ]
ok $? "the stale folder (spec, environment, output) is removed"
contains "$NLOG" "worker $STALE: its folder removed: its launch pad is gone" \
    "and the node manager says so"
[ ! -e "$NRUN/lpad/$STALE.sock" ]
ok $? "its stale socket too"
left=$(ls "$NSTATE/workers" | grep '^rtest' | sort | xargs)
[ "$left" = "rtest3-a0b1c3 rtest4-a0b1c4 rtest5-a0b1c5 rtest6-a0b1c6" ]
ok $? "of six ended roots' folders the 4 newest stay ($left)"
stop "$LIVE_RUN"
finish
