#!/bin/bash
# Benchmark of the secure active-message layer against raw UDP, measured
# in the same run on loopback: ping-pong round trips (window 1) and a
# flood (window 32), with the responder and the pinger pinned to the same
# core, so a message's whole cost lands on one core.
#   tests/bench/msg.sh BUILD
set -u
B=$1/bin
N=${BENCH_PINGS:-2000}
SECS=${BENCH_FLOOD_SECONDS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
RESPS=
trap 'for p in $RESPS; do kill "$p" 2>/dev/null; done; wait 2>/dev/null
    rm -rf "$T"' EXIT
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
# Ports from BENCH_PORT (tests/bench/run.sh): base+90 .. base+92.
P=$((${BENCH_PORT:-17400} + 90))
SCHEMES="raw cluster user"
# Round trips in ROUNDS interleaved rounds, each scheme once a round, so
# that a load on the machine lands on every scheme alike: the ratio is
# the median of the rounds' ratios.
ROUNDS=${BENCH_ROUNDS:-5}
RESPS=

wait_answering() {	# wait_answering FILE
	for _ in $(seq 100); do
		grep -q answering "$1" && return 0
		sleep 0.05
	done
	return 1
}

i=0
for s in $SCHEMES; do
	$PIN "$B/CilkPing" -c "$T/c.conf" -S $s -l 127.0.0.1:$((P + i)) \
	    >"$T/resp.$s" 2>&1 &
	RESPS="$RESPS $!"
	wait_answering "$T/resp.$s" || { echo "bench: no $s responder" >&2
	    exit 1; }
	i=$((i + 1))
done
echo "bench: $ROUNDS rounds of $N ping-pongs a scheme, then a ${SECS}s" \
    "flood each" >&2
for r in $(seq "$ROUNDS"); do
	i=0
	for s in $SCHEMES; do
		$PIN "$B/CilkPing" -c "$T/c.conf" -S $s -F -w 1 -n "$N" \
		    -d 600 --json 127.0.0.1:$((P + i)) >"$T/$s.rtt.$r" || {
			echo "bench: $s ping failed" >&2; exit 1; }
		i=$((i + 1))
	done
done
i=0
for s in $SCHEMES; do
	$PIN "$B/CilkPing" -c "$T/c.conf" -S $s -F -w 32 -d "$SECS" \
	    --json 127.0.0.1:$((P + i)) >"$T/$s.flood" || {
		echo "bench: $s flood failed" >&2; exit 1; }
	i=$((i + 1))
done

python3 - "$T" "$ROUNDS" <<'PY'
import json, os, statistics, sys
t, rounds = sys.argv[1], int(sys.argv[2])
S = ("raw", "cluster", "user")
rtt = {s: [json.load(open(os.path.join(t, "%s.rtt.%d" % (s, r))))["rtt_ms"]
           for r in range(1, rounds + 1)] for s in S}
flood = {s: json.load(open(os.path.join(t, s + ".flood")))["messages_per_s"]
         for s in S}
def med(s, k):
    return statistics.median(x[k] * 1e3 for x in rtt[s])
def ratio(s, k):
    return statistics.median(a[k] / b[k] for a, b in zip(rtt[s], rtt["raw"]))
print("secure active messages vs raw UDP (loopback, 64-byte pings, one core;")
print("round trips: medians of %d interleaved rounds)" % rounds)
print("%-8s %12s %8s %12s %8s %14s %8s" % ("scheme", "median us", "x raw",
      "p99 us", "x raw", "flood msg/s", "x raw"))
for s in S:
    print("%-8s %12.1f %8.2f %12.1f %8.2f %14.0f %8.2f" % (s,
          med(s, "median"), ratio(s, "median"), med(s, "p99"),
          ratio(s, "p99"), flood[s], flood[s] / flood["raw"]))
print("targets: round trip within 1.30x raw; flood at least 0.50x raw")
PY
