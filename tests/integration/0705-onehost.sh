#!/bin/bash
# A broker and a node manager on one host with one configuration and so
# one state_dir, as cilknow(7)'s walk-through runs them on 'falcon': a
# cluster-wide predicate set with CilkPred survives a broker restart
# after the node manager has stored a node predicate of its own (no two
# daemons share a state file), and still decides whether the node is
# lent.  An older version's shared state_dir/predicates is split on
# take-over: the broker takes the always and user scopes, the node
# manager its node scope.
# ports: 18200-18209
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
B=127.0.0.1:18200
NM=127.0.0.1:18201
cat >>"$C" <<EOC
broker = $B
admins = ann
register_interval = 1
sensors = file:$T/sensors
EOC
export CILKNOW_CONF=$C
P=$BIN/CilkPred
# 400 s without input: busy by the default (900 s), idle by 300 s.
printf 'idletime=400\nload=0,0,0\nusers=0\n' >"$T/sensors"
chmod 644 "$T/sensors"
state_of() { "$BIN/CilkNodes" | awk '$2 == "127.0.0.1" { print $3 }'; }
state_is() { test "$(state_of)" = "$1"; }

# An older version's state_dir/predicates, written last by whichever
# daemon saved last: here both scopes.
mkdir -p "$T/state"
cat >"$T/state/predicates" <<EOP
always add idletime=900,load=0.35,0.3,0.25:0.8,0.6,0.5
user=bob add users=3
node=127.0.0.1 add users=9
EOP
chmod 644 "$T/state/predicates"

start broker "$SBIN/CilkJobBroker" -f -c "$C"
BPID=$LAST_PID
start nm "$SBIN/CilkNodeManager" -f -c "$C" -o listen=$NM
wait_for 15 state_is busy
ok $? "broker and node manager share state_dir; the node is busy (400 s < 900 s)"

"$P" >"$T/list0.out" 2>&1
contains "$T/list0.out" '^user=bob add users=3$' \
    "the broker took over the older file's user predicate"
! grep -q '^node=' "$T/list0.out"
ok $? "but not its node predicate"
"$P" node=127.0.0.1 >"$T/node0.out" 2>&1
contains "$T/node0.out" '^node=127\.0\.0\.1 add users=9$' \
    "the node manager took over the node predicate"
test -f "$T/state/predicates"
ok $? "the older file is left in place"

"$P" always add idletime=300 >"$T/add.out" 2>&1
exit_is $? 0 "CilkPred always add idletime=300"
wait_for 10 state_is idle
ok $? "with it the node is lent"
# The node manager now stores its own file.
"$P" node=127.0.0.1 add users=5 >"$T/nadd.out" 2>&1
exit_is $? 0 "CilkPred node=127.0.0.1 add users=5 (stored by the node manager)"
"$P" >"$T/list1.out" 2>&1
contains "$T/list1.out" '^always add idletime=300,load=' \
    "CilkPred lists the cluster-wide predicate"

# The broker restarts; the node manager keeps running.
changes() { grep -c "the broker's predicates changed" "$T/nm.out"; }
before=$(changes)
stop "$BPID"
start broker2 "$SBIN/CilkJobBroker" -f -c "$C"
listed() { test -n "$(state_of)"; }
wait_for 10 listed
ok $? "the node registers with the restarted broker"
"$P" >"$T/list2.out" 2>&1
cmp -s "$T/list1.out" "$T/list2.out"
ok $? "after the restart CilkPred lists the same predicates"
contains "$T/list2.out" '^always add idletime=300,load=' \
    "the cluster-wide predicate is still there"
# The restarted broker pushes its predicates with every registration.
"$P" node=127.0.0.1 check >"$T/check.out" 2>&1
contains "$T/check.out" '^always add idletime=300,load=.*: pass$' \
    "the node still judges by it"
contains "$T/check.out" '^idle: yes' "and is idle by it"
[ "$(changes)" -eq "$before" ]
ok $? "the node was not sent other predicates"
state_is idle
ok $? "the node stays lent"
finish
