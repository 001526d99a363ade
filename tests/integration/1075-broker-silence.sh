#!/bin/bash
# A node manager that hears nothing from its broker says why at warning
# priority, once per cause, not once a retry: silence (naming its own
# cluster key id, as the broker answers nothing it cannot open), a
# cluster key that does not open what comes from the broker's host
# (naming both key ids), and messages sealed with our key but stamped
# far from our clock (naming the skew).  CilkPing from the broker's
# host stands in for the broker's word; the broker itself, run with
# another cluster key, is silent to us.
# ports: 20420-20421
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
B=127.0.0.1:20420
N=127.0.0.2:20421
echo idletime=1000000 >"$T/sensors"
keyid() { "$BIN/CilkKey" show "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == "id") print $(i + 1) }'; }
OURS=$(keyid "$T/cluster.key")
# Another cluster: the same configuration with another cluster key.
mkdir -p "$T/other"
"$BIN/CilkKey" generate-cluster "$T/other/cluster.key" >/dev/null
sed "s|^cluster_key = .*|cluster_key = $T/other/cluster.key|; s|^cluster_pub = .*|cluster_pub = $T/other/cluster.pub|" \
    "$C" >"$T/other.conf"
chmod 644 "$T/other.conf"
THEIRS=$(keyid "$T/other/cluster.key")
test -n "$OURS" && test -n "$THEIRS" && test "$OURS" != "$THEIRS"
ok $? "two cluster keys, ids $OURS and $THEIRS"

start broker "$SBIN/CilkJobBroker" -f -v -c "$T/other.conf" -o listen=$B \
    -o run_dir="$T/brun" -o state_dir="$T/bstate"
wait_for 10 "$BIN/CilkPing" -c "$T/other.conf" -n 1 -W 0.5 "$B"
ok $? "a broker of another cluster listens on $B"
# The node's stderr stands for the journal's stream: each line starts
# with its priority, "<4>" a warning (journalctl -p warning shows it).
: >"$T/node.out"
JS=$(stat -c %d:%i "$T/node.out")
start node env CILKNOW_SBIN="$SBIN" JOURNAL_STREAM="$JS" \
    "$SBIN/CilkNodeManager" -f -c "$C" \
    -o listen=$N -o broker=$B -o run_dir="$T/nrun" \
    -o state_dir="$T/nstate" -o sensors=file:"$T/sensors" \
    -o register_interval=2
NODE=$LAST_PID
W='^<4>the broker 127\.0\.0\.1:20420'
wait_for 20 grep -q "$W does not answer.*key id $OURS" "$T/node.out"
ok $? "the node warns (priority 4) that the broker is silent, naming its own key id $OURS"
grep "$W" "$T/node.out" | sed 's/^/#   | /'

# The broker's host speaks with the other key: that is named.
"$BIN/CilkPing" -c "$T/other.conf" -n 2 -W 0.5 "$N" >/dev/null 2>&1
wait_for 20 grep -q "$W is out of reach: its messages do not open with our cluster key (ours is key id $OURS, its messages name $THEIRS)" "$T/node.out"
ok $? "a message from the broker's host under another key: the warning names both key ids"

# With our key but a clock 600 s ahead: the skew is named.
"$BIN/CilkPing" -c "$C" --clock-offset 600 -n 2 -W 0.5 "$N" >/dev/null 2>&1
wait_for 20 grep -q "$W is out of reach: its messages carry our cluster key but are stamped +60[0-9]\.[0-9] s from our clock" "$T/node.out"
ok $? "an authentic message stamped 600 s ahead: the warning names the skew"

# Once per cause: retries add no lines.  The broker (-v) logs each
# register it drops: wait for two more of them.
drops() { grep -c 'dropped datagram from 127\.0\.0\.2:20421' "$T/broker.out"; }
n1=$(grep -c "$W" "$T/node.out")
d1=$(drops)
wait_for 30 sh -c "test \$(grep -c 'dropped datagram from 127\.0\.0\.2:20421' '$T/broker.out') -ge $((d1 + 2))"
ok $? "the node keeps registering (the broker dropped $d1, then $(drops))"
n2=$(grep -c "$W" "$T/node.out")
test "$n1" -eq 3 && test "$n2" -eq 3
ok $? "three causes, three warning lines, however many retries ($n1, then $n2)"
stop "$NODE"
finish
