#!/bin/bash
# A broker told its address by a name that resolves to loopback (the
# default localhost, or Debian's "127.0.1.1 HOSTNAME" line in
# /etc/hosts) listens where no other machine reaches it: -n and the
# start-up warn, naming the address and the key to set.  An address
# written as a loopback address is meant and gives no warning, nor does
# a CilkLocal cluster.
# ports: 18220-18229
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
W='warning: .*loopback address'

"$SBIN/CilkJobBroker" -n -c "$C" -o broker=localhost:18220 >"$T/n1.out" 2>&1
exit_is $? 0 "-n with broker = localhost:18220 still passes"
contains "$T/n1.out" \
    '^([0-9T:.Z-]+ )?CilkJobBroker: warning: broker = localhost:18220: the name resolves to (127\.0\.0\.1|::1), a loopback address, where no other machine can reach this daemon; set listen = ADDRESS \(cilknow\.conf or -o\)' \
    "and warns, naming the address and the key to set"
"$SBIN/CilkJobBroker" -n -c "$C" >"$T/n2.out" 2>&1
W='^([0-9T:.Z-]+ )?CilkJobBroker: warning: broker = localhost:7410: the name resolves to (127\.0\.0\.1|::1)'	# port-ok: a message; -n binds nothing
contains "$T/n2.out" "$W" "the default broker = localhost warns too"
"$SBIN/CilkJobBroker" -n -c "$C" -o listen=localhost:18220 \
    -o broker=127.0.0.1:18220 >"$T/n3.out" 2>&1
contains "$T/n3.out" '^([0-9T:.Z-]+ )?CilkJobBroker: warning: listen = localhost:18220: the name resolves to (127\.0\.0\.1|::1)' \
    "a listen key given by name is checked too"

for a in 127.0.0.1:18220 127.0.0.1 '[::1]:18220'; do
	"$SBIN/CilkJobBroker" -n -c "$C" -o broker="$a" >"$T/n4.out" 2>&1
	! grep -q "$W" "$T/n4.out" && grep -q 'configuration and keys OK' "$T/n4.out"
	ok $? "broker = $a, a loopback address written as one: no warning"
done
"$SBIN/CilkJobBroker" -n -c "$C" -o broker=localhost:18220 \
    -o listen=127.0.0.1:18220 >"$T/n5.out" 2>&1
! grep -q "$W" "$T/n5.out"
ok $? "broker by name, listen = 127.0.0.1:18220: no warning"
"$SBIN/CilkNodeManager" -n -c "$C" -o broker=127.0.0.1:18220 >"$T/n6.out" 2>&1
! grep -q "$W" "$T/n6.out"
ok $? "a node manager listening on 0.0.0.0 (its default): no warning"

# The start-up says it too (here on stderr, else in the log).
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o broker=localhost:18221
# localhost is 127.0.0.1 or ::1, as this machine's /etc/hosts says.
ping_it() {
	"$BIN/CilkPing" -c "$C" -n 1 -W 0.5 127.0.0.1:18221 ||
	    "$BIN/CilkPing" -c "$C" -n 1 -W 0.5 '[::1]:18221'
}
wait_for 10 ping_it
ok $? "the broker started with broker = localhost answers on loopback"
contains "$T/broker.out" \
    '^([0-9T:.Z-]+ )?CilkJobBroker: warning: broker = localhost:18221: the name resolves to (127\.0\.0\.1|::1)' \
    "its start-up warns"
stop "$LAST_PID"

# Debian's line for the host's own name, in a private mount namespace.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    printf '127.0.0.1 localhost\n127.0.1.1 falcon.example.org falcon\n' \
    >"$T/hosts" &&
    unshare -m --propagation private sh -c \
    'mount --bind "$1" /etc/hosts' sh "$T/hosts" 2>/dev/null; then
	unshare -m --propagation private sh -c \
	    'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh \
	    "$T/hosts" "$SBIN/CilkJobBroker" -n -c "$C" \
	    -o broker=falcon.example.org >"$T/n7.out" 2>&1
	contains "$T/n7.out" \
	    '^([0-9T:.Z-]+ )?CilkJobBroker: warning: broker = falcon\.example\.org: the name resolves to 127\.0\.1\.1, a loopback address' \
	    "with '127.0.1.1 falcon.example.org' in /etc/hosts -n warns"
else
	echo "ok $((TAP_N += 1)) # SKIP needs root and unshare(1) for a private /etc/hosts"
fi

# CilkLocal writes loopback addresses as addresses: no warning anywhere.
D=$T/cluster
export CILKNOW_SBIN=$SBIN
"$BIN/CilkLocal" start -n 1 -d "$D" -p 18222 >"$T/local.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
! grep -q "$W" "$D/broker.log" "$D"/nodes/*/log "$T/local.out"
ok $? "no loopback warning from a CilkLocal cluster"
"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1
finish
