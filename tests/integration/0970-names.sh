#!/bin/bash
# Names as the guide uses them (cilknow(7), "A two-node cluster"): a
# node manager that listens on every address goes by its host name
# (hawk), CilkNodes shows that name (-n the address), CilkPred takes the
# node's name or address for "check", and --json after the words;
# "CilkPing hawk.example.org" reaches hawk's node manager and "CilkPing
# falcon.example.org" the broker; a restarted broker goes on with new
# job ids.  It runs in private network, UTS and mount namespaces: only
# loopback, the host name hawk, and an /etc/hosts naming falcon
# (127.0.0.1, the broker) and hawk (127.0.0.2), so the daemons use
# their default ports as on a real cluster and nothing is shared.
# ports: netns
if [ -z "${CILKNOW_NAMES_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
    unshare --net --uts --mount --propagation private true 2>/dev/null; then
	exec unshare --net --uts --mount --propagation private \
	    env CILKNOW_NAMES_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
skip() { echo "ok 1 # SKIP $1"; finish; exit 0; }
[ -n "${CILKNOW_NAMES_NS:-}" ] ||
    skip "needs root and private namespaces (unshare; / a mount point, not a chroot)"
ip link set lo up 2>/dev/null || skip "cannot bring up lo (iproute2)"
hostname hawk || skip "cannot set the host name"
printf '127.0.0.1 localhost falcon.example.org falcon\n127.0.0.2 hawk.example.org hawk\n' \
    >"$T/hosts"
chmod 644 "$T/hosts"
mount --bind "$T/hosts" /etc/hosts || skip "cannot mount over /etc/hosts"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
echo idletime=1000000 >"$T/sensors"
chmod 644 "$T/sensors"
cat >>"$C" <<EOC
broker = falcon.example.org
sensors = file:$T/sensors
register_interval = 1
cgroup = none
EOC
export CILKNOW_CONF=$C
json_is() {	# json_is FILE EXPR : EXPR holds for the document d in FILE
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert eval(sys.argv[2]), d' "$1" "$2"
}

start broker "$SBIN/CilkJobBroker" -f -o listen=127.0.0.1:7410
BROKER=$LAST_PID
start node "$SBIN/CilkNodeManager" -f -o listen=0.0.0.0:18311
registered() { "$BIN/CilkNodes" | grep -q idle; }
wait_for 15 registered
ok $? "hawk's node manager registers with the broker on falcon"

# CilkNodes: the host name, as the guide shows it; -n the address.
"$BIN/CilkNodes" >"$T/n.out" 2>&1
contains "$T/n.out" '^ +1 hawk +idle ' "CilkNodes shows the node's host name"
"$BIN/CilkNodes" -n >"$T/nn.out" 2>&1
contains "$T/nn.out" '^ +1 127\.0\.0\.1 +idle ' "CilkNodes -n shows its address"
"$BIN/CilkNodes" --json >"$T/nj.out" 2>&1
json_is "$T/nj.out" 'd["nodes"][0]["host"] == "hawk"'
ok $? "CilkNodes --json: the same host name"

# CilkPred: the node by name or by address, --json after the words.
"$BIN/CilkPred" node=hawk check >"$T/p1.out" 2>&1
exit_is $? 0 "CilkPred node=hawk check"
"$BIN/CilkPred" node=127.0.0.1 check >"$T/p2.out" 2>&1
exit_is $? 0 "CilkPred node=127.0.0.1 check (the address CilkNodes -n shows)"
contains "$T/p2.out" '^node hawk ' "and it reports on hawk"
"$BIN/CilkPred" node=127.0.0.1 check --json >"$T/p3.out" 2>&1
exit_is $? 0 "CilkPred node=127.0.0.1 check --json"
json_is "$T/p3.out" 'd["node"] == "hawk" and d["idle"] is True'
ok $? "prints the check as JSON"
"$BIN/CilkPred" --json node=hawk check >"$T/p4.out" 2>&1 &&
    json_is "$T/p4.out" 'd["node"] == "hawk"'
ok $? "and --json before the words as well"

# CilkPing as the walk-through has it: a bare host is its node
# manager, unless it is the broker's.  This hawk's node manager listens
# on hawk's address, so that its answers come from there (on one
# machine, answers from a wildcard socket come from 127.0.0.1).
start node2 "$SBIN/CilkNodeManager" -f -o listen=127.0.0.2:7411 \
    -o state_dir="$T/state2" -o run_dir="$T/run2"
wait_for 10 grep -q 'listening on' "$T/node2.out"
"$BIN/CilkPing" -n 1 -W 1 hawk.example.org >"$T/g1.out" 2>&1
exit_is $? 0 "CilkPing hawk.example.org (the guide's check) gets an answer"
contains "$T/g1.out" '127\.0\.0\.2:7411' "from the node manager's port"
"$BIN/CilkPing" -n 1 -W 1 falcon.example.org >"$T/g2.out" 2>&1
exit_is $? 0 "CilkPing falcon.example.org gets an answer"
contains "$T/g2.out" '127\.0\.0\.1:7410' "from the broker's port"

# Job ids: a restarted broker does not give one again.
"$TOOLS/fake_node" job 1 0 5 first >"$T/j1.out" 2>&1
exit_is $? 0 "a job registers"
stop "$BROKER"
start broker2 "$SBIN/CilkJobBroker" -f -o listen=127.0.0.1:7410
wait_for 10 "$BIN/CilkPing" -n 1 -W 0.2 falcon.example.org
ok $? "the broker is restarted"
"$TOOLS/fake_node" job 1 0 5 second >"$T/j2.out" 2>&1
exit_is $? 0 "another job registers"
j1=$(grep -Eo '[0-9]+' "$T/j1.out" | head -1)
j2=$(grep -Eo '[0-9]+' "$T/j2.out" | head -1)
[ -n "$j1" ] && [ -n "$j2" ] && [ "$j2" -gt "$j1" ]
ok $? "with a new id (${j1:-?}, then ${j2:-?})"
finish
