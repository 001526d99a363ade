#!/bin/bash
# One user registering jobs as fast as one process can (a new job with a
# 255-byte command line each time, unregistered at once) neither floods
# the broker's log nor stalls it: the broker takes a user's
# registrations at user_register_rate a second after a burst of 64,
# refuses the rest saying why, logs at most 20 lines a minute about
# one user's registrations, and still answers CilkPs and registers
# another user's job during the flood.  Counts, not timings.
# ports: 20100-20109
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
"$BIN/CilkKey" public "$T/bob.id" >"$T/users/bob.pub"
AT=127.0.0.1:20100
echo "broker = $AT" >>"$C"
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o run_dir="$T/run"
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.2 $AT
ok $? "the broker answers pings"
F="$TOOLS/fake_node -c $C -b $AT"
$F job 1 0 0 "ann's first job" >/dev/null 2>&1
exit_is $? 0 "a registration that echoes the broker's cookie is taken"
size0=$(stat -c %s "$T/broker.out")

# At most 4,000 registrations in at most 8 s, from one process.
start flood "$TOOLS/reg_flood" "$C" 4000 8
FLOOD=$LAST_PID
wait_for 10 grep -q "registered by ann: flood xxx" "$T/broker.out"
ok $? "the flood runs"
"$BIN/CilkPs" -c "$C" -o timeout=3 >"$T/ps.out" 2>&1
exit_is $? 0 "CilkPs is answered during the flood"
$F -o user_key="$T/bob.id" -W 3 job 1 0 0 "bob's job" >/dev/null 2>"$T/bob.err"
exit_is $? 0 "bob registers a job during ann's flood"
wait_for 20 grep -q "^sent" "$T/flood.out"
ok $? "the flood ends ($(cat "$T/flood.out"))"
read -r _ sent _ acked _ fast _ refused _ _ <"$T/flood.out"
[ "${sent:-0}" -ge 1000 ]
ok $? "it sent at least 1,000 registrations (${sent:-0})"
# A burst of 64 and 10 a second for at most ~10 s, with slack.
[ "${acked:-999}" -le 250 ] && [ "${acked:-0}" -ge 64 ]
ok $? "the broker took 64 to 250 of them (${acked:-?})"
[ "${fast:-0}" -ge $((sent - acked - 100)) ]
ok $? "and refused the rest saying they came too fast (${fast:-0})"
lines=$(grep -c "of ann\|by ann\|from ann" "$T/broker.out")
[ "$lines" -le 20 ]
ok $? "at most 20 lines about ann's registrations were logged ($lines)"
grew=$(( $(stat -c %s "$T/broker.out") - size0 ))
[ "$grew" -le 20000 ]
ok $? "the broker's log grew by at most 20 KB ($grew bytes)"
echo "# flood: $(cat "$T/flood.out"); log +$grew bytes, $lines lines"
"$BIN/CilkPs" -c "$C" -o user_key="$T/bob.id" >"$T/ps2.out" 2>&1
grep -q "bob's job" "$T/ps2.out"
ok $? "bob's job is listed"
kill -0 "$BROKER"
ok $? "the broker is still running"
finish
