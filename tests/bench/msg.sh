#!/bin/bash
# Benchmark of the secure active-message layer against raw UDP, measured
# in the same run on loopback: ping-pong round trips (window 1) and a
# flood (window 32), with the responder and the pinger pinned to the same
# core, so a message's whole cost lands on one core.
#   tests/bench/msg.sh BUILD
set -u
B=$1/bin
N=${BENCH_PINGS:-5000}
SECS=${BENCH_FLOOD_SECONDS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
RESP=
trap '[ -n "$RESP" ] && kill "$RESP" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
PIN=
command -v taskset >/dev/null && PIN="taskset -c 0"

mkdir -p "$T/users"
"$B/CilkKey" generate-cluster "$T/cluster.key" >/dev/null &&
"$B/CilkKey" generate-user -u bench "$T/id" >/dev/null &&
"$B/CilkKey" public "$T/id" >"$T/users/bench.pub" || exit 1
cat >"$T/c.conf" <<EOC
cluster_key = $T/cluster.key
cluster_pub = $T/cluster.pub
user_key = $T/id
user_keys = $T/users
EOC
chmod 644 "$T/c.conf"
AT=127.0.0.1:17490

for s in raw cluster user; do
	$PIN "$B/CilkPing" -c "$T/c.conf" -S $s -l $AT >"$T/resp.out" 2>&1 &
	RESP=$!
	for _ in $(seq 100); do
		grep -q answering "$T/resp.out" && break
		sleep 0.05
	done
	echo "bench: $s: $N ping-pongs, then a ${SECS}s flood" >&2
	$PIN "$B/CilkPing" -c "$T/c.conf" -S $s -F -w 1 -n "$N" -d 600 \
	    --json $AT >"$T/$s.rtt" || { echo "bench: $s ping failed" >&2; exit 1; }
	$PIN "$B/CilkPing" -c "$T/c.conf" -S $s -F -w 32 -d "$SECS" \
	    --json $AT >"$T/$s.flood" || { echo "bench: $s flood failed" >&2; exit 1; }
	kill "$RESP"; wait "$RESP" 2>/dev/null; RESP=
done

python3 - "$T" <<'PY'
import json, os, sys
t = sys.argv[1]
r = {s: (json.load(open(os.path.join(t, s + ".rtt"))),
         json.load(open(os.path.join(t, s + ".flood"))))
     for s in ("raw", "cluster", "user")}
raw_rtt, raw_flood = r["raw"]
print("secure active messages vs raw UDP (loopback, 64-byte pings, one core)")
print("%-8s %12s %8s %12s %8s %14s %8s" % ("scheme", "median us", "x raw",
      "p99 us", "x raw", "flood msg/s", "x raw"))
for s in ("raw", "cluster", "user"):
    rtt, fl = r[s]
    med, p99 = rtt["rtt_ms"]["median"] * 1e3, rtt["rtt_ms"]["p99"] * 1e3
    rate = fl["messages_per_s"]
    print("%-8s %12.1f %8.2f %12.1f %8.2f %14.0f %8.2f" % (s, med,
          med / (raw_rtt["rtt_ms"]["median"] * 1e3), p99,
          p99 / (raw_rtt["rtt_ms"]["p99"] * 1e3), rate,
          rate / raw_flood["messages_per_s"]))
print("targets: round trip within 1.30x raw; flood at least 0.50x raw")
PY
