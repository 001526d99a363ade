#!/bin/bash
# Speedup of programs of threads stealing worker to worker (cilknow(3),
# "Stealing"): cilkfib and cilksort on a 2-node loopback CilkLocal
# cluster, 1 processor each, against -Alone, paired (each cluster run
# beside an -Alone run, the ratio taken per pair, the median printed).
# A cluster run's time is from its root thread's start (CILKNOW_STATS'
# "s from the root thread's start"), the root having waited for both
# workers (CILKNOW_MIN_WORKERS=2); -Alone's is its wall clock.  A figure,
# not a test: meaningful on a quiet machine only (the load average is
# printed with it).  Targets of issue 24: fib >= 1.7, cilksort 10^7 >= 1.2.
#   tests/bench/steal.sh BUILD
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
FIB=${BENCH_SFIB:-36}
SORT=${BENCH_SSORT:-10000000}
RUNS=${BENCH_RUNS:-3}
P=${BENCH_PORT:-17400}	# tests/bench/run.sh: P+360..P+362
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
"$B/CilkLocal" start -n 2 -d "$T/c" -p $((P + 360)) -o register_interval=1 \
    -o timeout=2 -o worker_sched_idle=no >/dev/null || exit 1
cd "$T" || exit 1

secs() {	# secs CMD... : wall-clock seconds, output in $T/last.out
	local s e
	s=$(date +%s%N)
	"$@" >"$T/last.out" 2>&1 || { echo "bench: $* failed" >&2; tail "$T/last.out" >&2; exit 1; }
	e=$(date +%s%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", (e - s) / 1e9 }'
}
answer() { grep -E '^[0-9]+$' "$T/last.out" | tail -1; }
idle2() {
	local i
	for i in $(seq 200); do
		[ "$("$B/CilkNodes" -s idle 2>/dev/null | tail -n +2 | wc -l)" -eq 2 ] && return
		sleep 0.1
	done
}

echo "speedup on a 2-node loopback cluster (1 processor each) against -Alone,"
echo "paired, median of $RUNS; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-18s %9s %9s %7s %8s %8s\n" "" alone cluster speedup stolen bytes
for job in "cilkfib $FIB" "cilksort $SORT"; do
	set -- $job
	: >"$T/ratios"
	for i in $(seq "$RUNS"); do
		a=$(secs "$B/$1" -Alone "$2"); want=$(answer)
		idle2
		CILKNOW_CONF=$T/c/cilknow.conf CILKNOW_MIN_WORKERS=2 \
		    CILKNOW_STATS=1 secs "$B/$1" "$2" >/dev/null
		[ "$(answer)" = "$want" ] || { echo "bench: $1 answers differ" >&2; exit 1; }
		c=$(sed -n "s/.*; \([0-9.]*\) s from the root thread's start.*/\1/p" "$T/last.out")
		st=$(sed -n 's/.*threads: [0-9]* run, \([0-9]*\) closures stolen.*/\1/p' "$T/last.out")
		by=$(sed -n 's/.*, \([0-9]*\) bytes moved.*/\1/p' "$T/last.out")
		echo "$a $c $(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.4f", a / c }') $st $by" >>"$T/ratios"
	done
	sort -k3 -n "$T/ratios" | awk -v n="$job" '{ r[NR] = $0 } END {
	    split(r[int((NR + 1) / 2)], f, " ")
	    printf "%-18s %9.3f %9.3f %7.2f %8d %8d\n", n, f[1], f[2], f[3], f[4], f[5] }'
done
