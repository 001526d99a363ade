#!/bin/bash
# Programs of threads (cilknow(3), "Threads"): each example run alone
# (-Alone) prints the answer of its serial twin; a bad size is refused;
# on a 1-node CilkLocal cluster (a worker that joins in time steals
# from the root: 0847-steal tests that) the answers are the same, the
# jobs exit 0 and leave no worker behind.
# ports: 20500-20509
. "$(dirname "$0")/lib.sh"
export CILKNOW_SBIN=$SBIN
cd "$T" || exit 1

last() { grep -E '^-?[0-9.]+$' "$1" | tail -1; }

# alone NAME SIZE : -Alone against NAME_serial
alone() {
	"$TOOLS/$1_serial" "$2" >"$T/$1.want" 2>&1
	"$BIN/$1" -Alone "$2" >"$T/$1.out" 2>&1
	rc=$?
	want=$(last "$T/$1.want")
	got=$(last "$T/$1.out")
	if [ "$rc" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
		ok 0 "$1 -Alone $2 prints $want, as $1_serial"
	else
		ok 1 "$1 -Alone $2 prints $want, as $1_serial"
		echo "#   exit $rc, got '$got'"
		sed 's/^/#   | /' "$T/$1.out" | tail -10
	fi
}
alone cilkfib 21
alone cilkfib 1
alone pi 1000000
alone pi 3
alone matmul 130
alone matmul 1
alone cilksort 300000
alone cilksort 0
alone knapsack 40
alone knapsack 1

"$BIN/cilksort" -Alone -5 >"$T/bad.out" 2>&1
exit_is $? 2 "cilksort refuses a negative size"
contains "$T/bad.out" "usage: cilksort N" "and says how it is used"

# On a cluster: the same answers through a root and its clearinghouse.
D=$T/cluster
"$BIN/CilkLocal" start -n 1 -d "$D" -p 20500 -o register_interval=1 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_idle() { test "$("$BIN/CilkNodes" -s idle | tail -n +2 | wc -l)" -eq 1; }
wait_for 15 nodes_idle
ok $? "1 idle node"
for job in "cilksort 2000000" "cilkfib 25" "pi 20000000"; do
	set -- $job
	"$TOOLS/$1_serial" "$2" >"$T/$1.want" 2>&1
	start "c-$1" "$BIN/$1" "$2"
	P=$LAST_PID
	wait_for 120 eval "! kill -0 $P"
	ok $? "$1 $2 ends on the cluster"
	wait "$P"
	exit_is $? 0 "$1 $2 exits 0 on the cluster"
	got=$(last "$T/c-$1.out")
	[ -n "$got" ] && [ "$got" = "$(last "$T/$1.want")" ]
	ok $? "$1 $2 prints $got on the cluster, as $1_serial"
	grep -q 'running on this workstation alone' "$T/c-$1.out"
	ok $((!$?)) "$1 ran with its clearinghouse, not alone"
	n=$(grep -c 'joined from' "$T/c-$1.out")
	echo "# $1: $n workers joined"
	[ -z "$(worker_pids "$T/c-$1.out")" ]
	ok $? "$1 leaves no worker behind"
done
wait_for 15 nodes_idle
ok $? "the node is idle again"
finish
