#!/bin/bash
# make demo: the secure active-message layer, live on loopback, narrated.
# (Until the daemons land, this shows the layer every daemon will speak.)
set -u
build=$(cd "$1" && pwd)
B=$build/bin
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-demo.XXXXXX")
RESP=
trap '[ -n "$RESP" ] && kill "$RESP" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "1. Keys: one cluster key shared by the daemons, one key per user"
mkdir -p "$T/users"
run "$B/CilkKey" generate-cluster "$T/cluster.key"
run "$B/CilkKey" generate-user -u demo "$T/demo.id"
"$B/CilkKey" public "$T/demo.id" >"$T/users/demo.pub"
echo "(the administrator installs demo's public key as $T/users/demo.pub)"
cat >"$T/cilknow.conf" <<EOC
cluster_key = $T/cluster.key
cluster_pub = $T/cluster.pub
user_key = $T/demo.id
user_keys = $T/users
timeout = 1
EOC
chmod 644 "$T/cilknow.conf"
export CILKNOW_CONF=$T/cilknow.conf

say "2. A component answering pings on 127.0.0.2:7411 (where a node manager lives)"
"$B/CilkPing" -l 127.0.0.2:7411 >"$T/resp.out" 2>&1 &
RESP=$!
for _ in $(seq 100); do grep -q answering "$T/resp.out" && break; sleep 0.05; done
cat "$T/resp.out"

say "3. Daemon to daemon: the cluster scheme (XChaCha20-Poly1305 under the cluster key)"
run "$B/CilkPing" -n 3 -i 0.1 127.0.0.2:7411

say "4. A user's tool: the user scheme (Ed25519 signature by demo's own key)"
run "$B/CilkPing" -S user -n 3 -i 0.1 127.0.0.2:7411

say "5. A 60000-byte message: sealed once, cut into 42 datagrams, reassembled"
run "$B/CilkPing" -n 2 -i 0.1 -s 60000 127.0.0.2:7411

say "6. An intruder with the wrong key gets no answer at all, only a clear error here"
"$B/CilkKey" generate-cluster "$T/intruder.key" >/dev/null
run "$B/CilkPing" -o cluster_key="$T/intruder.key" -n 2 -i 0.1 127.0.0.2:7411
echo "(exit status $?: no authenticated reply)"

say "7. A clock 100 s off is outside the 30 s replay window"
run "$B/CilkPing" --clock-offset 100 -n 1 127.0.0.2:7411
echo "(exit status $?)"

say "8. The responder counted every refusal; any good ping shows its counters"
run "$B/CilkPing" -n 1 127.0.0.2:7411

say "9. Throughput: a flood for one second"
run "$B/CilkPing" -F -d 1 127.0.0.2:7411

kill "$RESP"; wait "$RESP" 2>/dev/null; RESP=
say "Done. Run 'make check' for the test suite and 'make bench' for the figures."
