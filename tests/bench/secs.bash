# Sourced by the benchmarks (not one itself: tests/bench/run.sh runs
# *.sh): timing a command, with $T the benchmark's folder.
# secs CMD... : wall-clock seconds of CMD, its output in $T/last.out
secs() {
	local s e
	s=$(date +%s%N)
	"$@" >"$T/last.out" 2>&1 || { echo "bench: $* failed" >&2; cat "$T/last.out" >&2; exit 1; }
	e=$(date +%s%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", (e - s) / 1e9 }'
}
