# Sourced by the benchmarks that measure a speedup (not one itself:
# tests/bench/run.sh runs *.sh): how many processors the machine gives
# at once, measured now.  A virtual machine's processors may share a
# host's cores: seen here, two pinned copies of one program ran 1.7
# times as long each as one copy alone, and a minute later side by side
# as fast as alone.  A speedup means something only beside this.
# capacity needs $B (the build's programs) and $T (the benchmark's folder).

# cpu_list : the processors this shell may run on, one per line
cpu_list() {
	taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
	    awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'
}

# CPU_FIRST: the processor that runs the programs alone (pinned, so that
# their times and the probe's are the same processor's)
CPU_FIRST=$(cpu_list | head -1)

# capacity : prints the processors' worth of the machine now: a probe
# (cilkfib 35 alone, about 1 s) pinned to CPU_FIRST, then a copy
# pinned to every processor at once; the sum over copies of the first
# time over the copy's.  2.00 on an idle 2-core machine.
capacity() {
	local c s e one i
	local probe=("$B/cilkfib" -Alone "${BENCH_PROBE:-35}")
	s=$(date +%s%N)
	taskset -c "$CPU_FIRST" "${probe[@]}" >/dev/null 2>&1 ||
	    { echo "bench: the capacity probe failed: ${probe[*]}" >&2; return 1; }
	e=$(date +%s%N)
	one=$((e - s))
	i=0
	for c in $(cpu_list); do
		( s=$(date +%s%N)
		  taskset -c "$c" "${probe[@]}" >/dev/null 2>&1 || exit 1
		  e=$(date +%s%N)
		  echo $((e - s)) >"$T/probe.$i" ) &
		i=$((i + 1))
	done
	wait
	if [ "$(cat "$T"/probe.* 2>/dev/null | wc -l)" -ne "$i" ]; then
		echo "bench: the capacity probe failed on a processor" >&2
		rm -f "$T"/probe.*
		return 1
	fi
	cat "$T"/probe.* | awk -v one="$one" '
		{ sum += one / $1 } END { printf "%.3f\n", sum }'
	rm -f "$T"/probe.*
}
