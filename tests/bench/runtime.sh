#!/bin/bash
# Benchmark of the parallel runtime (cilknow(3)), every figure a ratio
# against a baseline measured in the same run:
#  - serial slowdown (Phish, Table 1): fib and queens on one worker
#    through the runtime, divided by a plain serial C version; the
#    runtime alone (-Alone: no clearinghouse) and as a root with its
#    clearinghouse and job manager, registered with a live broker whose
#    one node is busy (so that no worker joins);
#  - speedup of queens from 1 worker (the root alone) to 2 (the root and
#    the worker of a 1-node CilkLocal cluster), with the work units
#    handed out and migrated (Phish, Table 2's counters).
#   tests/bench/runtime.sh BUILD
set -u
. "$(dirname "$0")/secs.bash"
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
FIB=${BENCH_FIB:-42}
QUEENS=${BENCH_QUEENS:-15}
SPEEDUP=${BENCH_SPEEDUP_QUEENS:-16}
RUNS=${BENCH_RUNS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
P=${BENCH_PORT:-17400}	# tests/bench/run.sh: P+350, P+351, P+399
"$B/CilkLocal" start -n 1 -d "$T/c" -p $((P + 350)) -o register_interval=1 \
    -o timeout=2 >/dev/null || exit 1
export CILKNOW_CONF=$T/c/cilknow.conf
cd "$T" || exit 1

# node_is STATE : the node's owner there (busy) or away (idle), through its
# sensor file, until CilkNodes lists it so (10 s at most)
node_is() {
	if [ "$1" = busy ]; then
		echo idletime=0
	else
		printf 'idletime=1000000\nusers=0\nload=0,0,0\n'
	fi >"$T/c/nodes/127.0.0.2/sensors"
	for _ in $(seq 100); do
		"$B/CilkNodes" -s "$1" 2>/dev/null | grep -q 127.0.0.2 && return 0
		sleep 0.1
	done
	echo "bench: the node is not $1 after 10 s" >&2
	exit 1
}

# median CMD... : the median of RUNS runs
median() {
	local i
	for i in $(seq "$RUNS"); do secs "$@"; done | sort -n |
	    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f\n", a / b }'; }
answer() { grep -E '^[0-9]+$' "$T/last.out" | tail -1; }

row() {	# row NAME SERIAL ALONE ROOT
	printf "%-14s %9.3f %9.3f %7.2f %9.3f %7.2f\n" "$1" "$2" "$3" \
	    "$(div "$3" "$2")" "$4" \
	    "$(div "$4" "$2")"
}

echo "serial slowdown: one worker through the runtime / plain serial C ($RUNS runs, median seconds)"
printf "%-14s %9s %9s %7s %9s %7s\n" "" serial alone ratio root ratio
node_is busy
fs=$(median "$build/tests/fib_serial" "$FIB"); want=$(answer)
fa=$(median "$B/fib" -Alone "$FIB"); [ "$(answer)" = "$want" ] || exit 1
fr=$(median "$B/fib" "$FIB")
[ "$(answer)" = "$want" ] || { echo "bench: fib answers differ" >&2; exit 1; }
row "fib $FIB" "$fs" "$fa" "$fr"
qs=$(median "$build/tests/queens_serial" "$QUEENS"); want=$(answer)
qa=$(median "$B/queens" -Alone "$QUEENS"); [ "$(answer)" = "$want" ] || exit 1
qr=$(median "$B/queens" "$QUEENS")
[ "$(answer)" = "$want" ] || { echo "bench: queens answers differ" >&2; exit 1; }
row "queens $QUEENS" "$qs" "$qa" "$qr"
echo "(alone: -Alone, no clearinghouse; root: with its clearinghouse and"
echo " job manager, registered with a broker whose one node is busy;"
echo " Phish measured fib 5.90, queens 1.12)"

echo
echo "speedup of queens $SPEEDUP from 1 worker to 2 (root + 1 node), $RUNS runs"
export CILKNOW_STATS=1
one=$(median "$B/queens" "$SPEEDUP")	# the node still busy
want=$(answer)
for i in $(seq "$RUNS"); do
	node_is idle	# again, after the last run's worker
	secs "$B/queens" "$SPEEDUP" >>"$T/two"
	[ "$(answer)" = "$want" ] || { echo "bench: queens answers differ" >&2; exit 1; }
	grep -Eo '[0-9]+ work units, [0-9]+ migrated, [0-9]+ redone, [0-9]+ workers' \
	    "$T/last.out" >>"$T/counters"
done
two=$(sort -n "$T/two" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
printf "%-22s %9s\n" "" seconds
printf "%-22s %9.3f\n" "1 worker" "$one"
printf "%-22s %9.3f\n" "2 workers" "$two"
printf "%-22s %9.2f\n" "speedup" "$(div "$one" "$two")"
echo "counters of the 2-worker runs (units handed out, migrated, redone, workers):"
sed 's/^/  /' "$T/counters"
