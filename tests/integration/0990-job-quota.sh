#!/bin/bash
# No user fills the job table every user shares: with user_jobs = 3 the
# broker takes three of ann's jobs and refuses the fourth, saying why,
# while bob still registers his.  Priorities outside 1-1000 are refused
# by the broker itself, whatever the client checked.  And no reflector:
# a user-scheme list is answered in full only with a cookie.
# ports: 17995-17999
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
"$BIN/CilkKey" public "$T/bob.id" >"$T/users/bob.pub"
AT=127.0.0.1:17995
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o run_dir="$T/run" \
    -o broker=$AT -o user_jobs=3
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.2 $AT
ok $? "the broker answers pings"
F="$TOOLS/fake_node -c $C -b $AT"
for i in 1 2 3; do
	$F job 1 0 0 "ann's job $i" >/dev/null 2>"$T/ann$i.err"
	exit_is $? 0 "ann's job $i of 3 is registered"
done
$F job 1 0 0 "ann's job 4" >/dev/null 2>"$T/ann4.err"
exit_is $? 1 "ann's 4th job is refused"
contains "$T/ann4.err" "refused: too many jobs of this user \(user_jobs\)" \
    "saying why"
$F -o user_key="$T/bob.id" job 1 0 0 "bob's job" >/dev/null 2>"$T/bob.err"
exit_is $? 0 "bob still registers his job"
[ "$("$BIN/CilkPs" -c "$C" -b $AT | tail -n +2 | wc -l)" -eq 4 ]
ok $? "CilkPs lists 4 jobs"
$F job 1001 0 0 "too important" >/dev/null 2>"$T/pri.err"
exit_is $? 1 "priority 1001 is refused by the broker"
contains "$T/pri.err" "priority must be 1 to 1000" "saying why"
$F -o user_key="$T/bob.id" job 1000 0 0 "bob's urgent job" >/dev/null 2>&1
exit_is $? 0 "priority 1000 is accepted"

# A reflector no more: a signed list request whose answer would go to a
# forged address gets a cookie no larger than the request; only an asker
# that echoes it (CilkPs does) gets the list.
$F -o user_key="$T/bob.id" job 1 0 0 "bob's sweep $(printf '%0200d' 0)" \
    >/dev/null 2>&1
exit_is $? 0 "bob's third job, with a long command line"
$F -o user_key="$T/bob.id" list jobs >"$T/forge.out" 2>&1
exit_is $? 0 "a list request without a cookie is answered"
contains "$T/forge.out" '^request [0-9]+ answer cookie 16$' \
    "with a 16-byte cookie, not the list"
"$BIN/CilkPs" -c "$C" -b $AT -o cluster_key="$T/none.key" >"$T/ps.out" 2>&1
exit_is $? 0 "CilkPs in the user scheme echoes the cookie"
[ "$(tail -n +2 "$T/ps.out" | wc -l)" -eq 6 ]
ok $? "and gets the whole list ($(tail -n +2 "$T/ps.out" | wc -l) of 6 jobs)"
"$BIN/CilkPs" -c "$C" -b $AT --json >"$T/ps.json" 2>&1
exit_is $? 0 "CilkPs with the cluster key needs no cookie"

# Logs without bound no more: 100 refused registrations, 20 lines.
refused=0
for i in $(seq 100); do
	$F job 1001 0 0 "flood $i" >/dev/null 2>&1
	[ $? -eq 1 ] && refused=$((refused + 1))
done
[ "$refused" -eq 100 ]
ok $? "100 registrations with priority 1001 are refused ($refused)"
lines=$(grep -c "job register from ann refused: priority" "$T/broker.out")
[ "$lines" -le 20 ]
ok $? "the broker logged at most 20 lines of them ($lines)"
kill -0 "$BROKER"
ok $? "the broker is still running"
finish
