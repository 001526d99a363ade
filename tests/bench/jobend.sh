#!/bin/bash
# Benchmark: `CilkRun --tasks 1 -- true` as a whole command (submit, run,
# the exit back, the job's end) on an idle 1-node CilkLocal cluster over
# loopback, median of N runs; beside it, in the same run, `srun -N1 true`
# when Slurm is installed, and a local fork+exec of true.
#   tests/bench/jobend.sh BUILD
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
N=${BENCH_JOBS:-30}
P=$((${BENCH_PORT:-17400} + 500))	# tests/bench/run.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
"$B/CilkLocal" start -n 1 -d "$T/c" -p $P -o register_interval=1 \
    -o timeout=3 >/dev/null || exit 1
export CILKNOW_CONF=$T/c/cilknow.conf
idle1() { [ "$("$B/CilkNodes" -s idle 2>/dev/null | tail -n +2 | wc -l)" -eq 1 ]; }
wait_idle() {
	for _ in $(seq 200); do idle1 && return 0; sleep 0.05; done
	return 1
}
SRUN=
command -v srun >/dev/null && srun -N1 true >/dev/null 2>&1 && SRUN=srun
cd "$T" || exit 1
for i in $(seq "$N"); do
	wait_idle || { echo "bench: the node did not come back idle" >&2
		exit 1; }
	s=$(date +%s%N)
	timeout 60 "$B/CilkRun" --tasks 1 -- true >/dev/null 2>&1 ||
	    echo "bench: run $i failed" >&2
	e=$(date +%s%N)
	echo "$s $e" >>"$T/cilk"
	if [ -n "$SRUN" ]; then
		s=$(date +%s%N)
		srun -N1 true >/dev/null 2>&1
		e=$(date +%s%N)
		echo "$s $e" >>"$T/srun"
	fi
	s=$(date +%s%N)
	true
	/bin/true
	e=$(date +%s%N)
	echo "$s $e" >>"$T/local"
	[ $((i % 10)) -eq 0 ] && echo "bench: $i of $N jobs" >&2
done
python3 - "$T" <<'PY'
import os, statistics, sys
t = sys.argv[1]
def lat(name):
    p = os.path.join(t, name)
    if not os.path.exists(p):
        return None
    return [(int(b) - int(a)) / 1e6 for a, b in
            (l.split() for l in open(p) if len(l.split()) == 2)]
c, s, l = lat("cilk"), lat("srun"), lat("local")
print("a job of one task that runs true, as a whole command, 1 idle node "
      "on loopback (%d runs)" % len(c))
print("%-30s %10s %10s" % ("", "median ms", "p90 ms"))
def row(name, v):
    v = sorted(v)
    print("%-30s %10.1f %10.1f" % (name, statistics.median(v),
          v[min(len(v) - 1, int(0.9 * len(v)))]))
row("CilkRun --tasks 1 -- true", c)
row("local fork+exec of true", l)
if s:
    row("srun -N1 true", s)
    print("ratio CilkRun / srun (median of paired runs): %.2f (target "
          "at most 1.0)" % statistics.median(a / b for a, b in zip(c, s)))
else:
    print("Slurm not installed")
PY
