#!/bin/bash
# Speedup of programs of threads on a 2-node loopback CilkLocal cluster
# (1 processor each) against the same program alone (-Alone), paired:
# each cluster run beside a run alone, the ratio taken per pair, the
# median printed, with the job's statistics (closures stolen, steal
# attempts, threads each worker ran) from the last cluster run.  A
# cluster run is what a user gets: the root starts at once and the
# nodes' workers join it when they are recruited (no
# CILKNOW_MIN_WORKERS), so recruitment counts.  On a 2-core machine the
# root and two workers share 2 cores.
# The ceiling is what the machine gives, measured beside every pair
# (cpus.bash): a virtual machine's 2 processors may be worth 1.2
# when both run.  The run alone is pinned to the probe's processor;
# "of cap." is each pair's speedup over the capacity measured beside
# it (1.00: the cluster used all the machine gave), the median printed.
# BENCH_NODES (2): the cluster's nodes; 1 puts the root and one worker
# on the 2 cores, so that neither waits for the other's core.
# Targets of issue 24: fib, queens, matmul >= 1.7; cilksort 10^7 >= 1.2.
#   tests/bench/speedup.sh BUILD
set -u
. "$(dirname "$0")/secs.bash"
. "$(dirname "$0")/cpus.bash"
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
RUNS=${BENCH_RUNS:-3}
N=${BENCH_NODES:-2}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
P=${BENCH_PORT:-17400}	# tests/bench/run.sh: P+400 .. P+402
"$B/CilkLocal" start -n "$N" -d "$T/c" -p $((P + 400)) -o register_interval=1 \
    -o timeout=2 >"$T/start.out" 2>&1 || { cat "$T/start.out"; exit 1; }
export CILKNOW_CONF=$T/c/cilknow.conf CILKNOW_STATS=1
cd "$T" || exit 1

answer() { grep -E '^-?[0-9.]+$' "$T/last.out" | tail -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'; }

# bench NAME SIZE : RUNS pairs; prints a row
bench() {
	local name=$1 size=$2 i a c k want
	: >"$T/a"; : >"$T/c2"; : >"$T/r"; : >"$T/k"; : >"$T/e"
	for i in $(seq "$RUNS"); do
		nodes_idle "$N" 20 || exit 1
		a=$(secs taskset -c "$CPU_FIRST" "$B/$name" -Alone "$size") ||
		    exit 1
		want=$(answer)
		k=$(capacity) || exit 1
		nodes_idle "$N" 20 || exit 1
		c=$(secs "$B/$name" "$size") || exit 1
		[ "$(answer)" = "$want" ] || { echo "bench: $name $size answers differ on the cluster" >&2; exit 1; }
		echo "$a" >>"$T/a"
		echo "$c" >>"$T/c2"
		echo "$k" >>"$T/k"
		div "$a" "$c" >>"$T/r"
		div "$(div "$a" "$c")" "$k" >>"$T/e"
	done
	printf "%-20s %8.3f %8.3f %8s %8s %8s  %s\n" "$name $size" \
	    "$(median <"$T/a")" "$(median <"$T/c2")" "$(median <"$T/r")" \
	    "$(median <"$T/k")" "$(median <"$T/e")" \
	    "$(sed -n 's/.*cilknow: threads: [0-9]* run, \([0-9]*\) closures stolen, \([0-9]*\) steal attempts.*/\1 stolen, \2 attempts/p' "$T/last.out" | tail -1)"
	grep -Eo 'worker [0-9]+: [0-9]+ threads run' "$T/last.out" |
	    sed 's/^/    last run: /'
}

nodes_idle "$N" 20 || exit 1
echo "speedup on a $N-node CilkLocal cluster (1 processor each) against -Alone:"
echo "seconds, median of $RUNS pairs, and the median of the pairs' ratios;"
echo "capacity: the processors' worth the machine gave beside each pair"
echo "(alone runs pinned to CPU $CPU_FIRST; of cap.: speedup / capacity)"
printf "%-20s %8s %8s %8s %8s %8s  %s\n" "" alone cluster speedup capacity "of cap." "last cluster run"
bench cilkfib "${BENCH_SFIB:-39}"
bench queens "${BENCH_SQUEENS:-16}"
bench matmul "${BENCH_SMM:-2400}"
bench cilksort "${BENCH_SSORT:-10000000}"
bench pi "${BENCH_SPI:-4000000000}"
