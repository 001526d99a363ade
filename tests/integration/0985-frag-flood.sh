#!/bin/bash
# Reassembly is fair: a keyless flood of first fragments from one host's
# many ports (tests/tools/frag_flood.py, from 127.0.0.66) fills every
# reassembly slot of a broker, and 3000-byte pings from another address
# (three fragments each) still get through, because the flood can only
# displace itself.  Without that, every fragmented message to the daemon
# is lost while the flood lasts.
# ports: 17990-17994
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
AT=127.0.0.1:17990
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o run_dir="$T/run" \
    -o broker=$AT
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.2 $AT
ok $? "the broker answers pings"
"$BIN/CilkPing" -c "$C" -n 5 -i 0.05 -s 3000 $AT >"$T/before.out" 2>&1
contains "$T/before.out" '^5 sent, 5 received' "3000-byte pings before the flood"

start flood python3 "$CILKNOW_TOP/tests/tools/frag_flood.py" 127.0.0.66 \
    $AT 400000 30 "$T/stop"
FLOOD=$LAST_PID
wait_for 10 grep -q flooding "$T/flood.out"
ok $? "the flood runs"
"$BIN/CilkPing" -c "$C" -n 20 -i 0.05 -W 1 -s 3000 $AT >"$T/during.out" 2>&1
touch "$T/stop"
wait_for 10 grep -q "^sent" "$T/flood.out"
ok $? "the flood stops when told ($(tail -n 1 "$T/flood.out"))"
grep -q "^flooding" "$T/flood.out" && ! grep -q "^sent [0-9]\{1,3\}$" "$T/flood.out"
ok $? "it was still flooding when the pings were done"
cat "$T/during.out" | sed 's/^/# /' | tail -n 2
received=$(awk '/ sent, / { print $3 }' "$T/during.out")
[ "${received:-0}" -ge 18 ]
ok $? "during the flood at least 18 of 20 3000-byte pings get through (${received:-0})"
kill -0 "$BROKER"
ok $? "the broker is still running"
finish
