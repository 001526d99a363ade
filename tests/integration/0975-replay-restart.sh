#!/bin/bash
# A request captured on the wire cannot be replayed after the daemon it
# was for restarts (its nonce cache starts empty, so it refuses whatever
# was sent before it started): an administrator's "CilkPred always add",
# deleted again, replayed 1-2 s later to a restarted broker, stays
# deleted.  Capturing needs root (AF_PACKET on lo).
# ports: 17980-17989
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17980
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
P=$BIN/CilkPred
wait_for 10 "$P"
ok $? "the broker answers CilkPred"

GO=$T/go
start replay "$TOOLS/udp_replay" 127.0.0.1:$PORT 1 60 "$GO"
REPLAY=$LAST_PID
wait_for 5 grep -q capturing "$T/replay.out"
ok $? "an eavesdropper listens on the broker's port"
"$P" always add users=7 >"$T/add.out" 2>&1
exit_is $? 0 "CilkPred always add users=7"
wait_for 5 grep -q "captured" "$T/replay.out"
ok $? "the request was captured"
"$P" always del users >"$T/del.out" 2>&1
exit_is $? 0 "and deleted again"

BROKER=$(awk '$1 == "broker" { print $2 }' "$D/pids")
stop "$BROKER"
start broker2 "$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" \
    -o run_dir="$D/broker"
wait_for 10 "$P"
ok $? "a restarted broker answers"
"$P" >"$T/before.out" 2>&1
! grep -q 'users=7' "$T/before.out"
ok $? "users=7 is not stored before the replay"

touch "$GO"
wait_for 10 grep -q "replayed 1 times" "$T/replay.out"
ok $? "the captured request is replayed to the new broker"
# The replay is in the broker's socket queue ahead of this request.
"$P" >"$T/after.out" 2>&1
exit_is $? 0 "CilkPred lists after the replay"
! grep -q 'users=7' "$T/after.out"
ok $? "the replay was refused: users=7 stays deleted"
finish
