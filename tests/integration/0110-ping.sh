#!/bin/bash
# CilkPing against CilkPing -l over loopback UDP: both schemes, long
# messages, and every way it must refuse: wrong key, unknown user, stale
# clock, relayed (misaddressed), replayed, malformed and oversized.
# ports: 17410-17419
. "$(dirname "$0")/lib.sh"
P=$BIN/CilkPing
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
AT=127.0.0.1:17411

"$P" -h >"$T/h.out" 2>&1
exit_is $? 0 "-h answers with usage"
"$P" -S carrier-pigeon "$AT" >/dev/null 2>&1
exit_is $? 2 "an unknown scheme is a usage error"
"$P" -s 70000 "$AT" >/dev/null 2>&1
exit_is $? 2 "an oversized -s is a usage error"
"$P" >/dev/null 2>&1
exit_is $? 2 "no target is a usage error"

start resp "$P" -c "$C" -l "$AT"
RESP=$LAST_PID
wait_for 10 "$P" -c "$C" -n 1 -W 0.2 "$AT"
ok $? "the responder answers within 10 s"

# peer_count REASON : the responder's drop counter, read by a good ping
peer_count() {
	"$P" -c "$C" -n 1 "$AT" | sed -n "s/.*[ ,]$1 \([0-9]*\).*/\1/p"
}

"$P" -c "$C" -n 3 -i 0.02 "$AT" >"$T/cl.out" 2>&1
exit_is $? 0 "cluster scheme ping"
contains "$T/cl.out" '^3 sent, 3 received, 0.0% loss' "3 of 3 answered"
contains "$T/cl.out" '\(cluster as ping\): seq=2 time=[0-9.]+ ms skew=[-+][0-9.]+ ms' \
    "per-ping line names the scheme, the peer, the time and the skew"
contains "$T/cl.out" '^rtt min/median/p99/max = [0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms$' \
    "min/median/p99/max at the end"

"$P" -c "$C" -S user -n 3 -i 0.02 "$AT" >"$T/us.out" 2>&1
exit_is $? 0 "user scheme ping (signed by ann's key)"
contains "$T/us.out" '^3 sent, 3 received' "3 of 3 answered"

for s in cluster user; do
	"$P" -c "$C" -S $s -n 2 -i 0.02 -s 60000 "$AT" >"$T/big.out" 2>&1
	exit_is $? 0 "$s scheme, 60000-byte pings (fragmented and reassembled)"
	contains "$T/big.out" '^6[0-9]{4} bytes from .*seq=1' \
	    "the long answer came back whole"
done

"$P" -c "$C" -S raw -n 2 "$AT" >"$T/raw.out" 2>&1
exit_is $? 3 "a raw ping gets no answer from an authenticated responder"

# A cluster key with the same id but another AEAD secret: bad MAC.
mat=$(grep '^cluster-key' "$T/cluster.key" | awk '{print $3}')
id=$(grep '^cluster-key' "$T/cluster.key" | awk '{print $2}')
other=$( (head -c 32 /dev/urandom; echo "$mat" | base64 -d | tail -c 32) | base64 -w0)
printf 'cluster-key %s %s\n' "$id" "$other" >"$T/forged.key"
chmod 600 "$T/forged.key"
"$P" -c "$C" -o cluster_key="$T/forged.key" -n 2 -i 0.02 -W 0.3 "$AT" \
    >"$T/wrong.out" 2>&1
exit_is $? 3 "a wrong cluster key gets no answer"
contains "$T/wrong.out" "no authenticated reply from $AT" "and says so"
contains "$T/wrong.out" "same cluster key" "and says what to check"
[ "$(peer_count bad_mac)" = 2 ]
ok $? "the responder counted 2 bad MACs"

"$BIN/CilkKey" generate-cluster "$T/other.key" >/dev/null
"$P" -c "$C" -o cluster_key="$T/other.key" -n 1 -W 0.3 "$AT" >/dev/null 2>&1
exit_is $? 3 "a different cluster key gets no answer"
[ "$(peer_count unknown_key)" = 1 ]
ok $? "the responder counted an unknown key id"

"$P" -c "$C" -o user_key="$T/bob.id" -S user -n 1 -W 0.3 "$AT" \
    >"$T/bob.out" 2>&1
exit_is $? 3 "a user whose public key is not installed gets no answer"
contains "$T/bob.out" "public key in its user_keys" "and is told why"

"$P" -c "$C" --clock-offset 100 -n 2 -i 0.02 -W 0.3 "$AT" >"$T/stale.out" 2>&1
exit_is $? 3 "a clock 100 s off gets no answer (replay_window 30 s)"
contains "$T/stale.out" "clocks agree within replay_window \(30 s\)" \
    "and the clock is named as a suspect"
[ "$(peer_count stale)" = 2 ]
ok $? "the responder counted 2 stale messages"
"$P" -c "$C" --clock-offset 10 -n 3 -i 0.02 "$AT" >"$T/skew.out" 2>&1
exit_is $? 0 "a clock 10 s off is within the window"
skew=$(sed -n 's/^clock skew (peer minus us): median \([-+0-9.]*\) ms$/\1/p' "$T/skew.out")
awk -v s="$skew" 'BEGIN { exit !(s < -9900 && s > -10100) }'
ok $? "and the skew is measured as -10 s (got $skew ms)"

"$P" -c "$C" -n 2 -i 0.02 -W 0.3 127.0.0.1:17419 >"$T/none.out" 2>&1
exit_is $? 3 "nobody listening: exit 3"
contains "$T/none.out" "no authenticated reply from 127.0.0.1:17419" \
    "with a clear message"

# A relay forwards our pings to the responder: sealed for the relay's
# address, they must be refused there.
start relay "$TOOLS/udp_relay" 127.0.0.1:17412 "$AT" 1 20
RELAY=$LAST_PID
wait_for 5 grep -q relaying "$T/relay.out"
"$P" -c "$C" -n 2 -i 0.02 -W 0.3 127.0.0.1:17412 >/dev/null 2>&1
exit_is $? 3 "pings relayed to another address get no answer"
[ "$(peer_count misaddressed)" = 2 ]
ok $? "the responder counted 2 misaddressed messages"
stop "$RELAY"

# An eavesdropper captures a ping and sends it again, 3 times.
start replay "$TOOLS/udp_replay" "$AT" 3 20
REPLAY=$LAST_PID
if wait_for 5 grep -q capturing "$T/replay.out"; then
	"$P" -c "$C" -n 1 "$AT" >/dev/null 2>&1
	exit_is $? 0 "the original ping is answered"
	wait_for 5 grep -q replayed "$T/replay.out"
	contains "$T/replay.out" "replayed 3 times" "the capture was replayed 3 times"
	[ "$(peer_count replay)" = 3 ]
	ok $? "the responder dropped and counted all 3 replays"
else
	echo "# skip: cannot capture on lo (not root?)"
fi
stop "$REPLAY"

# Garbage: truncated, malformed, oversized datagrams (bash's /dev/udp).
before=$(peer_count bad_length)
printf '\xc1' >/dev/udp/127.0.0.1/17411
head -c 3000 /dev/zero >/dev/udp/127.0.0.1/17411
[ "$(peer_count bad_length)" = $((before + 2)) ]
ok $? "a 1-byte and a 3000-byte datagram are dropped as bad_length"
before=$(peer_count bad_header)
printf 'GET / HTTP/1.0\r\n\r\n' >/dev/udp/127.0.0.1/17411
head -c 100 /dev/urandom | { printf '\xc1\x01\x01\x01'; cat; } \
    >/dev/udp/127.0.0.1/17411
# the second one may be bad_header or bad_length depending on the bytes
after=$(peer_count bad_header)
[ "$after" -ge $((before + 1)) ]
ok $? "a non-cilknow datagram is dropped as bad_header"

# Rotation without downtime: the responder knows [new, old].
cp "$T/cluster.key" "$T/old.key"
"$BIN/CilkKey" rotate "$T/cluster.key" >/dev/null
stop "$RESP"
contains "$T/resp.out" '^received [0-9]+, answered [0-9]+, dropped .*replay=' \
    "the responder prints its counters when it stops"
start resp2 "$P" -c "$C" -l "$AT"
wait_for 10 "$P" -c "$C" -n 1 -W 0.2 "$AT"
ok $? "the responder restarts with the rotated key"
"$P" -c "$C" -o cluster_key="$T/old.key" -n 1 "$AT" >/dev/null 2>&1
exit_is $? 0 "a daemon still on the previous key is answered"

"$P" -c "$C" --json -n 2 -i 0.02 "$AT" >"$T/json.out"
python3 - "$T/json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["received"] == 2 and d["scheme"] == "cluster"
assert d["rtt_ms"]["median"] > 0 and "bad_mac" in d["peer_counters"]
PY
ok $? "--json prints one document with rtt and counters"

"$P" -c "$C" -F -d 0.5 "$AT" >"$T/flood.out" 2>&1
exit_is $? 0 "flood"
contains "$T/flood.out" '^flood: [1-9][0-9]* round trips/s, [1-9][0-9]* messages/s$' \
    "flood prints messages per second"
finish
