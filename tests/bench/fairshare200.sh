#!/bin/bash
# Benchmark: the fair-share rules live at 200 nodes, where each push
# carries a sample of 32 peers, not the node list: a 200-node CilkLocal
# cluster (quantum 1 s), job 1 on every node, then jobs 2 and 3 at once;
# seconds until every job has 66 or 67 nodes, thesis and targeted rules,
# 3 rounds each, beside CilkSim's prediction with and without --peers.
#   tests/bench/fairshare200.sh BUILD
# Ports: CILKNOW_BENCH_PORT + 70 and + 71 (default 19120, 19121).
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
PORT=$(( ${CILKNOW_BENCH_PORT:-19050} + 70 ))
ROUNDS=${BENCH_ROUNDS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
RUNS=
trap 'for p in $RUNS; do kill -INT $p 2>/dev/null; done; "$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
counts() { "$B/CilkPs" | awk 'NR > 1 { printf "%s ", $4 }'; }
within() {
	c=$(counts)
	[ "$(echo "$c" | wc -w)" -eq 3 ] || return 1
	for x in $c; do [ "$x" -ge 66 ] && [ "$x" -le 67 ] || return 1; done
}
all_in() { [ "$("$B/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq 200 ]; }
poll() { for _ in $(seq 1200); do "$@" && return 0; sleep 0.1; done; return 1; }
cd "$T" || exit 1
for policy in thesis targeted; do
	"$B/CilkLocal" start -n 200 -d "$T/c" -p $PORT -o quantum=1 \
	    -o policy=$policy -o register_interval=2 -o stop_grace=1 \
	    -o timeout=3 >/dev/null || exit 1
	export CILKNOW_CONF=$T/c/cilknow.conf
	: >"$T/ms"
	for r in $(seq "$ROUNDS"); do
		poll all_in idle || { echo "bench: nodes not idle" >&2; exit 1; }
		"$B/CilkRun" -- sleep 600 >/dev/null 2>&1 &
		RUNS="$!"
		poll all_in running || exit 1
		s=$(date +%s%N)
		"$B/CilkRun" -- sleep 600 >/dev/null 2>&1 &
		RUNS="$RUNS $!"
		"$B/CilkRun" -- sleep 600 >/dev/null 2>&1 &
		RUNS="$RUNS $!"
		poll within || { echo "bench: no convergence in 120 s" >&2; exit 1; }
		echo "$(( ($(date +%s%N) - s) / 1000000 ))" >>"$T/ms"
		for p in $RUNS; do kill -INT "$p"; done
		for p in $RUNS; do wait "$p" 2>/dev/null; done
		RUNS=
	done
	"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1
	printf 'P=200 J=3 %-8s live (s, %d rounds): %s; ' "$policy" "$ROUNDS" \
	    "$(sort -n "$T/ms" | awk '{ printf "%s%.1f", (NR > 1 ? " " : ""), $1 / 1000 }')"
	for k in 0 32; do
		printf 'CilkSim --peers %s: %s quanta; ' "$k" "$("$B/CilkSim" \
		    -P 200 -J 3 --seeds 20 --policy $policy --peers $k --json |
		    sed -n 's/.*"median_exact": \([0-9.]*\).*/\1/p')"
	done
	echo
done
