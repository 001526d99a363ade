#!/bin/bash
# No reflector in the predicate requests either: a user's signed
# PRED_REQ from a forged source address gets at most a small answer (a
# 16-byte cookie) from the broker and from a node manager, however many
# predicates they keep, and a change in it is not applied; CilkPred
# echoes the cookie and gets everything, under either scheme.
# ports: 18800-18809
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=18800
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
P=$BIN/CilkPred
NODE=$(awk '$1 == "node" { print $3 }' "$D/pids")	# ADDR:PORT
H=${NODE%:*}
nodes_are() { test "$("$BIN/CilkNodes" | tail -n +2 | wc -l)" -eq 1; }
wait_for 15 nodes_are
ok $? "the node is registered"

# Many users' predicates (an administrator's, the user scheme): each
# add goes through the cookie round trip.
added=0
for i in $(seq -w 60); do
	"$P" user=user$i global add idletime=9$i,users=1,mem=1$i \
	    >/dev/null 2>"$T/add.err" && added=$((added + 1))
done
[ "$added" -eq 60 ]
ok $? "CilkPred added 60 users' predicates ($added)"
"$P" >"$T/list.out" 2>&1
exit_is $? 0 "CilkPred lists them (user scheme, the cookie echoed)"
n=$(grep -c '^user=user[0-9]* global add' "$T/list.out")
[ "$n" -eq 60 ]
ok $? "all 60 ($n), $(wc -c <"$T/list.out") bytes"

# The forger's view: one signed request, the cookie never echoed.
F="$TOOLS/fake_node -W 1.5"
$F -b 127.0.0.1:$PORT pred list >"$T/f1.out" 2>&1
exit_is $? 0 "a forged list request to the broker is answered"
contains "$T/f1.out" '^request [0-9]+ answer cookie 16$' \
    "with a 16-byte cookie, not the list ($(cat "$T/f1.out"))"
$F -b 127.0.0.1:$PORT pred user=user01 global add idletime=5 \
    >"$T/f2.out" 2>&1
contains "$T/f2.out" '^request [0-9]+ answer cookie 16$' \
    "a forged change gets the cookie too"
"$P" user=user01 global list >"$T/u1.out" 2>&1
contains "$T/u1.out" '^user=user01 global add idletime=901,' \
    "and is not applied"
$F -b $NODE pred node=$H check >"$T/f3.out" 2>&1
exit_is $? 0 "a forged check to the node manager is answered"
contains "$T/f3.out" '^request [0-9]+ answer cookie 16$' \
    "with a 16-byte cookie, not the predicates ($(cat "$T/f3.out"))"
$F -b $NODE pred node=$H list >"$T/f4.out" 2>&1
bytes=$(sed -nE 's/^request [0-9]+ answer pred ([0-9]+)$/\1/p' "$T/f4.out")
[ -n "$bytes" ] && [ "$bytes" -le 256 ]
ok $? "a small answer (the node's own list, ${bytes:-no} bytes) needs no cookie"

# The real tools get everything.
"$P" node=$H check >"$T/check.out" 2>&1
exit_is $? 0 "CilkPred node=H check (user scheme) works"
contains "$T/check.out" "^node $H \\(counted " "and prints the verdict"
"$P" -o user_key="$T/none.id" >"$T/list2.out" 2>&1
exit_is $? 0 "CilkPred with the cluster key needs no cookie"
cmp -s "$T/list.out" "$T/list2.out"
ok $? "and lists the same"
"$P" user=user01 global del idletime >"$T/del.out" 2>&1
exit_is $? 0 "CilkPred changes through the cookie"
finish
