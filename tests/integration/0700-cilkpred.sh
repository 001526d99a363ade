#!/bin/bash
# CilkPred on a 2-node CilkLocal cluster, over real UDP: the thesis's
# examples verbatim, list and --json, bad input refused with nothing
# stored, "node=H check", a user predicate applied only where the user
# is logged in, an ordinary user refused for always and another user's
# predicates, predicates surviving broker and node-manager restarts,
# and a node whose owner returns losing its worker.
# leaks: every program (its queries are what it tests)
# ports: 17600-17609
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17600
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
P=$BIN/CilkPred
pid_of() { awk -v r="$1" -v a="$2" '$1 == r && index($3, a) == 1 { print $2 }' "$D/pids"; }
nodes_in() { "$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l; }
nodes_are() { test "$(nodes_in "$1")" -eq "$2"; }
state_of() { "$BIN/CilkNodes" | awk -v h="$1" '$2 == h { print $3 }'; }
state_is() { test "$(state_of "$1")" = "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

"$P" >"$T/list0.out" 2>&1
exit_is $? 0 "CilkPred lists"
contains "$T/list0.out" '^always add idletime=900,load=0\.35,0\.3,0\.25:0\.8,0\.6,0\.5$' \
    "a new broker keeps the built-in default"
"$P" -h >"$T/h.out" 2>&1
exit_is $? 0 "CilkPred -h"
contains "$T/h.out" '^usage: CilkPred' "-h prints the usage"

# The thesis's two examples, verbatim (vulture is not in this cluster).
"$P" user=lisiecki global add idletime=900 >"$T/ex1.out" 2>&1
exit_is $? 0 "CilkPred user=lisiecki global add idletime=900"
contains "$T/ex1.out" '^user=lisiecki global add idletime=900$' \
    "it prints the stored predicate"
"$P" always node=vulture add load=.2,.2,.2 >"$T/ex2.out" 2>&1
exit_is $? 1 "CilkPred always node=vulture add load=.2,.2,.2 (no vulture here)"
contains "$T/ex2.out" 'node vulture is not registered' \
    "it parses, and says vulture is unknown"
"$P" always node=127.0.0.3 add load=.2,.2,.2 >"$T/ex2b.out" 2>&1
exit_is $? 0 "CilkPred always node=127.0.0.3 add load=.2,.2,.2"
contains "$T/ex2b.out" '^node=127\.0\.0\.3 add load=0\.2,0\.2,0\.2$' \
    "the node scope is stored by that node's manager"
"$P" node=127.0.0.3 >"$T/n3.out" 2>&1
contains "$T/n3.out" '^node=127\.0\.0\.3 add load=0\.2,0\.2,0\.2$' \
    "CilkPred node=H lists it"
"$P" >"$T/list1.out" 2>&1
contains "$T/list1.out" '^user=lisiecki global add idletime=900$' \
    "CilkPred lists the user predicate"
"$P" --json >"$T/list1.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]==1; assert {"scope": "user=lisiecki global", "predicate": "user=lisiecki global add idletime=900"} in d["predicates"]' "$T/list1.json"
ok $? "--json is one JSON document with the predicates"

# Bad input: refused naming the word, exit 2, nothing stored.
bad() {	# bad WORD ARGS... : exit 2 and a message that names WORD
	"$P" "${@:2}" >"$T/bad.out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -qF -- "$1" "$T/bad.out"
	ok $? "refused (exit $rc): $*"
}
bad "'idle=5'" user=ann add idle=5
bad "'.3x'" user=ann add load=.3x,.3,.3
bad "'25:00-06:00'" user=ann add hours=25:00-06:00
bad "'where=x'" where=x add idletime=5
bad "'5x'" always add idletime=5x
"$P" >"$T/list2.out" 2>&1
cmp -s "$T/list1.out" "$T/list2.out"
ok $? "nothing was stored"

# Check: every applicable predicate, value, threshold, pass/fail, verdict.
"$P" node=127.0.0.3 check >"$T/check.out" 2>&1
exit_is $? 0 "CilkPred node=127.0.0.3 check"
contains "$T/check.out" '^idle: yes \(2 applicable predicates, all hold\)$' "the verdict"
contains "$T/check.out" '^  idletime \(input\): 1000000 >= 900: pass$' \
    "the measured value, the threshold and pass"
contains "$T/check.out" '^node=127\.0\.0\.3 add load=0\.2,0\.2,0\.2: pass$' \
    "the node's own predicate applies"
"$P" --json node=127.0.0.3 check >"$T/check.json" 2>&1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["node"]=="127.0.0.3" and d["idle"] is True and len(d["predicates"])==2' "$T/check.json"
ok $? "check --json"

# A user predicate applies only where the user is logged in.
"$P" user=ann add idletime=600 >/dev/null 2>&1
exit_is $? 0 "CilkPred user=ann add idletime=600"
printf 'idletime=1000000\nload=0,0,0\nloggedin=ann:30\n' \
    >"$D/nodes/127.0.0.2/sensors"
wait_for 10 state_is 127.0.0.2 busy
ok $? "the node where ann works (30 s idle < 600) is busy"
"$P" node=127.0.0.2 check >"$T/check2.out" 2>&1
contains "$T/check2.out" '^user=ann add idletime=600: FAIL$' "check says why"
contains "$T/check2.out" '^  idletime \(user ann here\): 30 >= 600: FAIL$' \
    "measured on ann's own activity"
"$P" node=127.0.0.3 check >"$T/check3.out" 2>&1
! grep -q 'user=ann' "$T/check3.out"
ok $? "on the node where ann is not logged in it does not apply"
state_is 127.0.0.3 idle
ok $? "and that node stays idle"

# An ordinary user (ann's key) may change only ann's predicates.
"$BIN/CilkKey" generate-user -u ann "$T/ann.id" >/dev/null 2>&1 &&
"$BIN/CilkKey" public "$T/ann.id" >"$D/users/ann.pub" && reload_local "$D"
ok $? "a key for ann, installed, the daemons reloaded"
A="-o user_key=$T/ann.id"
"$P" $A always add users=3 >"$T/ann1.out" 2>&1
exit_is $? 1 "ann may not change always predicates"
contains "$T/ann1.out" 'refused: only an administrator \(admins = root[^)]*\) may change always predicates, and ann is not one' \
    "the refusal says why"
"$P" $A user=lisiecki global del idletime >"$T/ann2.out" 2>&1
exit_is $? 1 "ann may not change lisiecki's"
contains "$T/ann2.out" "only lisiecki or an administrator may change lisiecki's predicates" \
    "the refusal says why"
"$P" $A node=127.0.0.3 del load >"$T/ann3.out" 2>&1
exit_is $? 1 "ann does not own 127.0.0.3"
contains "$T/ann3.out" 'only the owners of 127\.0\.0\.3' "the refusal says why"
"$P" $A user=ann add idletime=20 >"$T/ann4.out" 2>&1
exit_is $? 0 "ann may change her own"
wait_for 10 state_is 127.0.0.2 idle
ok $? "with idletime=20 the node where ann is 30 s idle is idle again"
"$P" >"$T/list3.out" 2>&1
grep -v '^user=ann ' "$T/list1.out" >"$T/want3"
grep -v '^user=ann ' "$T/list3.out" | cmp -s - "$T/want3"
ok $? "the always and lisiecki predicates are unchanged"

# Predicates survive a broker restart and a node-manager restart.
kill -KILL "$(pid_of broker 127.0.0.1)"
start broker2 "$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" \
    -o run_dir="$D/broker"
wait_for 10 "$P"
"$P" >"$T/list4.out" 2>&1
cmp -s "$T/list3.out" "$T/list4.out"
ok $? "after a broker restart CilkPred lists the same predicates"
kill -KILL "$(pid_of node 127.0.0.3)"
start nm3 "$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=127.0.0.3:$((PORT + 1)) -o state_dir="$D/nodes/127.0.0.3/state" \
    -o run_dir="$D/nodes/127.0.0.3/run" \
    -o sensors=file:"$D/nodes/127.0.0.3/sensors"
wait_for 10 "$P" node=127.0.0.3
"$P" node=127.0.0.3 check >"$T/check4.out" 2>&1
contains "$T/check4.out" '^node=127\.0\.0\.3 add load=0\.2,0\.2,0\.2: pass$' \
    "after a node-manager restart its node predicate is still there"
contains "$T/check4.out" '^always add idletime=900' \
    "and it judges by the broker's predicates"
"$P" always node=127.0.0.3 del load=.2,.2,.2 >"$T/del.out" 2>&1
exit_is $? 0 "the node predicate is deleted with its value"
contains "$T/del.out" 'no predicate left' "del says nothing is left"

# The owner returns: the node goes busy and its worker is stopped.
wait_for 10 nodes_are idle 2
MARK=cilknow-pred-$$
workers_are() { test "$(shells "^sh -c .*$MARK" | wc -l)" -eq "$1"; }
start run "$BIN/CilkRun" -- sh -c "sleep 300; : $MARK"
wait_for 20 workers_are 2
ok $? "a job runs on both nodes"
echo idletime=0 >"$D/nodes/127.0.0.3/sensors"
wait_for 10 workers_are 1
ok $? "the owner of 127.0.0.3 returns: its worker is gone"
wait_for 10 state_is 127.0.0.3 busy
ok $? "and the node is busy"
"$P" node=127.0.0.3 check >"$T/check5.out" 2>&1
contains "$T/check5.out" '^  idletime \(input\): 0 >= 900: FAIL$' \
    "check shows the owner's input"
grep -E "stop|owner" "$D/nodes/127.0.0.3/log" "$T/nm3.out" 2>/dev/null |
    grep -q "the owner is back"
ok $? "the node manager logged that the owner is back"
kill -INT "$LAST_PID"
wait "$LAST_PID" 2>/dev/null
wait_for 10 workers_are 0

# No user fills the store: ann keeps at most 16 predicates, and the
# administrator's change still reaches the nodes.
have=$("$P" | grep -c '^user=ann ')
added=0
for i in $(seq $((16 - have))); do
	"$P" $A user=ann node=h$i add idletime=60 >/dev/null 2>&1 &&
	    added=$((added + 1))
done
[ "$((have + added))" -eq 16 ]
ok $? "ann keeps 16 predicates of her own ($have + $added)"
"$P" $A user=ann node=h17 add idletime=60 >"$T/q17.out" 2>&1
exit_is $? 1 "her 17th is refused"
contains "$T/q17.out" "ann keeps 16 predicates already, the most one user may" \
    "saying why"
"$P" always add users=9 >"$T/q.out" 2>&1
exit_is $? 0 "the administrator's always add is stored"
wait_for 10 sh -c "'$P' node=127.0.0.3 check 2>&1 | grep -q 'users=9'"
ok $? "and reaches the node"

# The sensors are the privileged parent's (DESIGN.md §9): the engine
# asks for each measurement.  A check answers from one made after it
# was asked, not from the last poll; a sensor file only root may read
# counts, though the engine of a node manager started as root is the
# service user.
S=$D/nodes/127.0.0.3/sensors
echo idletime=4242 >"$S"
"$P" node=127.0.0.3 check >"$T/check6.out" 2>&1
contains "$T/check6.out" '^  idletime \(input\): 4242 >= 900: pass$' \
    "check measures when it is asked (the file written just before)" ||
    sed 's/^/#   | /' "$T/check6.out"
echo idletime=0 >"$S"
wait_for 10 state_is 127.0.0.3 busy
ok $? "the owner is back: the node is busy"
if [ "$(id -u)" = 0 ]; then
	printf 'idletime=1000000\nusers=0\nload=0,0,0\n' >"$S.new" &&
	    chmod 600 "$S.new" && mv "$S.new" "$S"
	wait_for 15 state_is 127.0.0.3 idle
	ok $? "a sensor file only root may read lends the node (the parent reads it)"
else
	ok 0 "# SKIP not root: the engine is this user and reads what it may"
fi
finish
