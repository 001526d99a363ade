# Sourced by the benchmarks (not one itself: tests/bench/run.sh runs
# *.sh): timing a command, with $T the benchmark's folder, and waiting
# for a CilkLocal cluster's nodes, with $B its programs.
# secs CMD... : wall-clock seconds of CMD, its output in $T/last.out
secs() {
	local s e
	s=$(date +%s%N)
	"$@" >"$T/last.out" 2>&1 || { echo "bench: $* failed" >&2; cat "$T/last.out" >&2; exit 1; }
	e=$(date +%s%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", (e - s) / 1e9 }'
}

# nodes_idle N SECONDS : until CilkNodes lists N idle nodes (a job's
# workers leave after it), polled every 0.1 s; 1, said, if not by then.
nodes_idle() {
	local _
	for _ in $(seq $(($2 * 10))); do
		[ "$("$B/CilkNodes" -s idle 2>/dev/null | tail -n +2 | wc -l)" -eq "$1" ] &&
		    return 0
		sleep 0.1
	done
	echo "bench: the nodes are not idle after $2 s" >&2
	return 1
}
