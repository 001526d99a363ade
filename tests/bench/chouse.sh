#!/bin/bash
# The clearinghouse's load while a program of threads runs on 16 workers
# (an 8-node loopback CilkLocal cluster, 2 processors each, plus the
# root): cilkfib 36, 39, 41.  Steal attempts come mostly at a run's
# start and end (about 1000-1700 a run whatever the size), so steal
# attempts per second differ about tenfold between the sizes.  Workers
# steal worker to worker, so the clearinghouse should see the same
# messages per second (heartbeats, member lists) however much they
# steal (issue 24).  Each run waits for its 16 workers
# (CILKNOW_MIN_WORKERS); from the first steal from the root until the
# root ends, the clearinghouse is pinged every 0.5 s (CilkPing -S user,
# one ping; its pong carries the peer's counters) and the first and last
# readings' datagrams received, less the pings between them, over the
# time between them give its messages per second.  Steal attempts,
# closures stolen and seconds are the root's CILKNOW_STATS line.
# Printed: one row per size, then messages/s at the largest size over
# the smallest, beside the same ratio of steal attempts/s.
#   tests/bench/chouse.sh BUILD
set -u
. "$(dirname "$0")/secs.bash"
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
SIZES=${BENCH_CHOUSE_FIB:-36 39 41}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
P=${BENCH_PORT:-17400}	# tests/bench/run.sh: P+410, P+411
"$B/CilkLocal" start -n 8 -s 2 -d "$T/c" -p $((P + 410)) \
    -o register_interval=1 -o timeout=2 >"$T/start.out" 2>&1 ||
    { cat "$T/start.out"; exit 1; }
export CILKNOW_CONF=$T/c/cilknow.conf CILKNOW_STATS=1 CILKNOW_MIN_WORKERS=16
cd "$T" || exit 1

now() { date +%s%N; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", (b > 0 ? a / b : 0) }'; }
# received PORT : the clearinghouse's datagrams received, by one ping
received() {
	"$B/CilkPing" -S user -n 1 -W 1 "127.0.0.1:$1" 2>/dev/null |
	    sed -n 's/^peer counters: received \([0-9]*\),.*/\1/p'
}

# bench N : one run of cilkfib N; prints a row and appends to $T/rates
bench() {
	local n=$1 root port="" i k=0 r t t0="" r0="" k0=0 t1="" r1="" k1=0
	timeout 100 "$B/cilkfib" "$n" >"$T/run.out" 2>&1 &
	root=$!
	for i in $(seq 1500); do	# up to 150 s: recruiting, then the first steal
		[ -z "$port" ] && port=$(sed -n \
		    's/.*CilkChouse: listening on [0-9.]*:\([0-9]*\)$/\1/p' "$T/run.out")
		[ -n "$port" ] && grep -q 'stole a closure from the root' "$T/run.out" && break
		kill -0 "$root" 2>/dev/null || break
		sleep 0.1
	done
	for i in $(seq 400); do	# up to 200 s of readings while the root runs
		kill -0 "$root" 2>/dev/null || break
		[ -n "$port" ] || break
		t=$(now); r=$(received "$port"); k=$((k + 1))
		if [ -n "$r" ]; then
			[ -z "$r0" ] && { t0=$t; r0=$r; k0=$k; }
			t1=$t; r1=$r; k1=$k
		fi
		sleep 0.5
	done
	wait "$root" || { echo "bench: cilkfib $n failed" >&2; cat "$T/run.out" >&2; exit 1; }
	grep -Eq '^[0-9]+$' "$T/run.out" || { echo "bench: cilkfib $n: no answer" >&2; exit 1; }
	[ -n "$r0" ] && [ "$k1" -gt "$k0" ] ||
	    { echo "bench: cilkfib $n: fewer than 2 readings of the clearinghouse" >&2; exit 1; }
	local stats secs att stolen msgs win
	stats=$(grep 'cilknow: threads:' "$T/run.out" | tail -1)
	stolen=$(echo "$stats" | sed -n 's/.* \([0-9]*\) closures stolen,.*/\1/p')
	att=$(echo "$stats" | sed -n 's/.* \([0-9]*\) steal attempts,.*/\1/p')
	secs=$(echo "$stats" | sed -n 's/.*; \([0-9.]*\) s from the root.*/\1/p')
	msgs=$((r1 - r0 - (k1 - k0)))	# our own pings after the first are not the job's
	win=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }')
	printf "%-10s %7.3f %9s %7s %8s %7.2f %9s %9s\n" "cilkfib $n" "$secs" \
	    "$att" "$stolen" "$msgs" "$win" "$(div "$msgs" "$win")" "$(div "$att" "$secs")"
	echo "$(div "$msgs" "$win") $(div "$att" "$secs")" >>"$T/rates"
}

nodes_idle 8 30 || exit 1
echo "clearinghouse messages/s, 16 workers (8 CilkLocal nodes x 2 processors) + root:"
echo "seconds and steals from the root's stats; messages over the window of readings"
printf "%-10s %7s %9s %7s %8s %7s %9s %9s\n" "" seconds attempts stolen \
    messages window "msg/s" "steals/s"
for n in $SIZES; do
	nodes_idle 8 30 || exit 1
	bench "$n"
done
awk 'NR == 1 { m0 = $1; s0 = $2 } { m = $1; s = $2 }
END { printf "largest/smallest size: msg/s %.2f, steal attempts/s %.2f\n",
    (m0 > 0 ? m / m0 : 0), (s0 > 0 ? s / s0 : 0) }' "$T/rates"
