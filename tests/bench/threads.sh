#!/bin/bash
# Serial slowdown of programs of threads (cilknow(3), "Threads"): fib,
# cilksort and matmul through the runtime alone (-Alone) against their
# plain serial twins, paired (each run of the runtime beside a run of
# its twin, the ratio taken per pair, the median printed), and beside
# them the same programs with libgomp tasks (gcc -fopenmp,
# OMP_NUM_THREADS=1) and with TBB's task_group on one thread.  Times are
# CPU seconds (user + system) of the process: this machine is shared.
# Every run is pinned to one processor (cpus.bash's CPU_FIRST): a
# virtual machine's processors need not be equally fast.
# Targets of issue 24: fib <= 2.0, cilksort <= 1.2, matmul <= 1.1.
#   tests/bench/threads.sh BUILD
set -u
build=$(cd "$1" && pwd)
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/cpus.bash"
pin=(taskset -c "$CPU_FIRST")
FIB=${BENCH_TFIB:-38}
SORT=${BENCH_TSORT:-10000000}
MM=${BENCH_TMM:-800}
RUNS=${BENCH_RUNS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

have_omp=1 have_tbb=1
for p in cilkfib cilksort matmul; do
	gcc -O2 -fopenmp -o "$T/${p}_omp" "$dir/twins/${p}_omp.c" \
	    2>>"$T/cc.err" || have_omp=0
	g++ -O2 -o "$T/${p}_tbb" "$dir/twins/${p}_tbb.cpp" -ltbb \
	    2>>"$T/cc.err" || have_tbb=0
done
[ "$have_omp" = 1 ] || echo "libgomp: cannot build the OpenMP twins (gcc -fopenmp); see $T/cc.err"
[ "$have_tbb" = 1 ] || echo "TBB: not installed, its column is empty (as root: apt-get install libtbb-dev)"

# cpu CMD... : CPU seconds of CMD, its output in $T/last.out: perf's
# task-clock if perf runs here, else time(1)'s user + system (to 0.01 s)
if perf stat -x, -e task-clock -o "$T/perf" true >/dev/null 2>&1; then
	cpu() {
		perf stat -x, -e task-clock -o "$T/perf" "$@" >"$T/last.out" 2>&1 ||
		    { echo "bench: $* failed" >&2; cat "$T/last.out" >&2; exit 1; }
		awk -F, '/task-clock/ { printf "%.4f\n", $1 / 1000 }' "$T/perf"
	}
else
	cpu() {
		/usr/bin/time -f '%U %S' -o "$T/time" "$@" >"$T/last.out" 2>&1 ||
		    { echo "bench: $* failed" >&2; cat "$T/last.out" >&2; exit 1; }
		awk '{ printf "%.4f\n", $1 + $2 }' "$T/time"
	}
fi
answer() { tail -1 "$T/last.out"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'; }

# bench NAME SIZE : RUNS pairs; prints a row
bench() {
	local name=$1 size=$2 i s a o t want
	: >"$T/r.alone"; : >"$T/r.omp"; : >"$T/r.tbb"; : >"$T/s"
	for i in $(seq "$RUNS"); do
		s=$(cpu "${pin[@]}" "$build/tests/${name}_serial" "$size") || exit 1
		want=$(answer)
		echo "$s" >>"$T/s"
		a=$(cpu "${pin[@]}" "$build/bin/$name" -Alone "$size") || exit 1
		[ "$(answer)" = "$want" ] || { echo "bench: $name answers differ" >&2; exit 1; }
		div "$a" "$s" >>"$T/r.alone"
		if [ "$have_omp" = 1 ]; then
			o=$(OMP_NUM_THREADS=1 cpu "${pin[@]}" "$T/${name}_omp" "$size") || exit 1
			[ "$(answer)" = "$want" ] || { echo "bench: ${name}_omp answers differ" >&2; exit 1; }
			div "$o" "$s" >>"$T/r.omp"
		fi
		if [ "$have_tbb" = 1 ]; then
			t=$(cpu "${pin[@]}" "$T/${name}_tbb" "$size") || exit 1
			[ "$(answer)" = "$want" ] || { echo "bench: ${name}_tbb answers differ" >&2; exit 1; }
			div "$t" "$s" >>"$T/r.tbb"
		fi
	done
	printf "%-18s %9.3f %9s %9s %9s\n" "$name $size" "$(median <"$T/s")" \
	    "$(median <"$T/r.alone")" \
	    "$( [ "$have_omp" = 1 ] && median <"$T/r.omp" || echo -)" \
	    "$( [ "$have_tbb" = 1 ] && median <"$T/r.tbb" || echo -)"
}

echo "serial slowdown of programs of threads, one processor: CPU seconds of"
echo "the serial twin, and each version's / the twin's, median of $RUNS pairs,"
echo "every run on CPU $CPU_FIRST"
printf "%-18s %9s %9s %9s %9s\n" "" serial cilknow libgomp tbb
bench cilkfib "$FIB"
bench cilksort "$SORT"
bench matmul "$MM"
echo "(cilknow: -Alone; libgomp: omp task, OMP_NUM_THREADS=1; tbb:"
echo " task_group, max_allowed_parallelism 1; targets fib <= 2.0,"
echo " cilksort <= 1.2, matmul <= 1.1)"
