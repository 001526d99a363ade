#!/bin/bash
# A node manager that runs as an ordinary user may lend its machine only
# to that user's jobs: it refuses another user's job, says why in its
# log, and starts nothing.  Needs root (to become nobody) and setpriv.
# ports: 17500-17509
. "$(dirname "$0")/lib.sh"
export CILKNOW_SBIN=$SBIN
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null ||
    ! setpriv --reuid=nobody --regid=nogroup --clear-groups \
    test -x "$SBIN/CilkNodeManager"; then
	skip_all "needs root, setpriv, and binaries nobody can run"
fi
D=$T/cluster
"$BIN/CilkLocal" start -n 1 -d "$D" -p 17500 -o register_interval=1 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; rm -rf "$N"; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
# The only root-run node is busy, so the job can only go to nobody's.
echo idletime=0 >"$D/nodes/127.0.0.2/sensors"

N=$(mktemp -d /tmp/cilknow-nobody.XXXXXX)
chmod 755 "$N"
mkdir "$N/users" "$N/state" "$N/run"
cp "$D/cluster.key" "$D/cluster.pub" "$N/"
cp "$D"/users/*.pub "$N/users/"
echo idletime=1000000 >"$N/sensors"
cat >"$N/c.conf" <<EOC
broker = 127.0.0.1:17500
cluster_key = $N/cluster.key
cluster_pub = $N/cluster.pub
user_keys = $N/users
state_dir = $N/state
run_dir = $N/run
sensors = file:$N/sensors
register_interval = 1
EOC
chown -R nobody:nogroup "$N"
chmod 600 "$N/cluster.key"
start nobody setpriv --reuid=nobody --regid=nogroup --clear-groups \
    "$SBIN/CilkNodeManager" -f -c "$N/c.conf" -o listen=127.0.0.9:17501
nb_idle() { "$BIN/CilkNodes" | grep -Eq '127\.0\.0\.9 +idle'; }
wait_for 10 nb_idle
ok $? "nobody's node manager registers, idle"
root_busy() { "$BIN/CilkNodes" | grep -Eq '127\.0\.0\.2 +busy'; }
wait_for 10 root_busy
ok $? "root's own node is busy"

start run "$BIN/CilkRun" -t 4 -- touch "$N/ran"
refused() { grep -q "refusing job 1 of user root: this node manager runs as nobody, not root" "$T/nobody.out"; }
wait_for 10 refused
ok $? "it refuses root's job and logs why"
wait "$LAST_PID" 2>/dev/null
[ ! -e "$N/ran" ] && [ -z "$(ls -A "$N/state/workers" 2>/dev/null)" ]
ok $? "nothing was started"
[ "$TAP_FAILED" -gt 0 ] && ls -lR "$N" | sed "s/^/#   /"
"$BIN/CilkNodes" >"$T/nodes.out"
contains "$T/nodes.out" '127\.0\.0\.9 +idle +0/[0-9]+/[0-9]+ +-' "the node stays idle"
finish
