#!/bin/bash
# Users' public keys are loaded at start and on SIGHUP, not read for a
# datagram: a user whose key is installed while the broker runs is
# unknown to it (no answer) until a reload, and answered after it; the
# broker logs what it loaded and what it refused.
# ports: 18810-18819
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
AT=127.0.0.1:18810
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o run_dir="$T/run" \
    -o broker=$AT
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.2 $AT
ok $? "the broker answers pings"
contains "$T/broker.out" "user_keys $T/users: 1 user's key loaded, 0 refused" \
    "it says it loaded ann's key"
PRED="$BIN/CilkPred -c $C -b $AT -o cluster_key=$T/none.key"
$PRED -o user_key="$T/ann.id" >"$T/ann.out" 2>&1
exit_is $? 0 "ann (user scheme) lists the predicates"

# Bob's key, installed while the broker runs: not read for his request.
$PRED -o user_key="$T/bob.id" >"$T/bob0.out" 2>&1
exit_is $? 3 "bob, whose key is not installed, gets no answer"
"$BIN/CilkKey" public "$T/bob.id" >"$T/users/bob.pub"
echo junk >"$T/users/eve.pub"
# For longer than the 5 s older versions kept a missing file in mind.
end=$(( $(date +%s) + 7 )) tries=0 answered=0
while [ "$(date +%s)" -lt "$end" ]; do
	$PRED -o user_key="$T/bob.id" >"$T/bob1.out" 2>&1 &&
	    answered=$((answered + 1))
	tries=$((tries + 1))
done
[ "$answered" -eq 0 ]
ok $? "bob's key installed: for 7 s no answer before a reload ($answered of $tries)"
contains "$T/bob1.out" "your public key is in its user_keys folder" \
    "and CilkPred says what to check"
# reloaded N : the broker has logged N reloads
reloaded() {
	[ "$(grep -c "reloaded the configuration and keys" "$T/broker.out")" \
	    -ge "$1" ]
}
kill -HUP "$BROKER"
wait_for 10 reloaded 1
ok $? "SIGHUP: the broker reloads"
contains "$T/broker.out" "user_keys $T/users: 2 users' keys loaded, 1 refused" \
    "loading bob's key too, refusing one"
contains "$T/broker.out" "user_keys: $T/users/eve.pub:.*; refused" \
    "naming the file refused"
$PRED -o user_key="$T/bob.id" >"$T/bob2.out" 2>&1
exit_is $? 0 "after the reload bob is answered"
cmp -s "$T/ann.out" "$T/bob2.out"
ok $? "with the same list"

# A key removed is forgotten at the next reload, not before.
rm -f "$T/users/bob.pub"
$PRED -o user_key="$T/bob.id" >/dev/null 2>&1
exit_is $? 0 "bob's file removed: still answered until a reload"
kill -HUP "$BROKER"
wait_for 10 reloaded 2
ok $? "a second reload"
$PRED -o user_key="$T/bob.id" >/dev/null 2>&1
exit_is $? 3 "after it bob gets no answer"
kill -0 "$BROKER"
ok $? "the broker is still running"
finish
