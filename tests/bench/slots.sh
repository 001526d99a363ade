#!/bin/bash
# Benchmark of a workstation's processors (slots, DESIGN.md section 5):
# queens on one CilkLocal node that lends 1 processor, then 2, on this
# machine (2 cores here), in the same run:
#  - throughput: CilkRun --tasks 4 of the serial queens (independent
#    tasks, one a processor): what the second processor gives;
#  - the parallel queens (cilknow(3)): its root computes on the
#    submitting host beside the node's workers, so on a machine of 2
#    cores the second slot competes with the root; printed as measured.
#   tests/bench/slots.sh BUILD
set -u
. "$(dirname "$0")/secs.bash"
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
N=${BENCH_SLOTS_QUEENS:-15}
PQ=${BENCH_SLOTS_PQUEENS:-15}
TASKS=4
RUNS=${BENCH_RUNS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
P=${BENCH_PORT:-17400}	# tests/bench/run.sh: P+560, P+561
cp "$build/tests/queens_serial" "$T/queens_serial"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / b }'; }
idle() {	# the node lends K processors and runs nothing, bounded
	for _ in $(seq 200); do
		"$B/CilkNodes" 2>/dev/null | grep -Eq " idle +0/$1/$1 " && return 0
		sleep 0.05
	done
	echo "bench: the node never lent $1 processors" >&2
	exit 1
}
# measure K: median seconds of the task run and of the parallel queens
measure() {
	local k=$1 i
	"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1
	"$B/CilkLocal" start -n 1 -s "$k" -d "$T/c" -p $((P + 560)) \
	    -o register_interval=1 -o timeout=2 -o stop_grace=1 >/dev/null ||
	    exit 1
	export CILKNOW_CONF=$T/c/cilknow.conf
	: >"$T/tasks.$k"; : >"$T/par.$k"
	for i in $(seq "$RUNS"); do
		idle "$k"
		secs "$B/CilkRun" --tasks $TASKS -- "$T/queens_serial" "$N" \
		    >>"$T/tasks.$k"
		[ "$(grep -c "^\[" "$T/last.out")" -ge $TASKS ] ||
		    { echo "bench: $TASKS answers expected" >&2; cat "$T/last.out" >&2; exit 1; }
		idle "$k"
		secs "$B/queens" "$PQ" >>"$T/par.$k"
	done
}
cores=$(nproc)
measure 1
measure 2
t1=$(median <"$T/tasks.1"); t2=$(median <"$T/tasks.2")
p1=$(median <"$T/par.1"); p2=$(median <"$T/par.2")
echo "one node, 1 slot vs 2 slots, on $cores cores ($RUNS runs, median seconds)"
printf "%-34s %9s %9s %9s\n" "" "1 slot" "2 slots" "speedup"
printf "%-34s %9.3f %9.3f %9s\n" "CilkRun --tasks $TASKS queens_serial $N" \
    "$t1" "$t2" "$(div "$t1" "$t2")"
printf "%-34s %9.3f %9.3f %9s\n" "queens $PQ (root + the node's workers)" \
    "$p1" "$p2" "$(div "$p1" "$p2")"
