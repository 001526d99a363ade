#!/bin/bash
# Benchmark: a batch of short tasks, `CilkRun --tasks 100 -- true` on an
# idle 4-node CilkLocal cluster over loopback, as a whole command and to
# its last task's output, p50 and p99 over N runs; beside it, in the same
# run, `sbatch --array=0-99 --wait` and `srun -n 100` when Slurm is
# installed (a run that finds no Slurm says that it skipped them), and
# 100 local fork+execs of true in a row.
#   tests/bench/batch.sh BUILD
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
N=${BENCH_BATCHES:-20}
TASKS=100
P=$((${BENCH_PORT:-17400} + 540))	# tests/bench/run.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
"$B/CilkLocal" start -n 4 -d "$T/c" -p $P -o timeout=3 >/dev/null || exit 1
export CILKNOW_CONF=$T/c/cilknow.conf
idle4() { [ "$("$B/CilkNodes" -s idle 2>/dev/null | tail -n +2 | wc -l)" -eq 4 ]; }
wait_idle() {
	for _ in $(seq 400); do idle4 && return 0; sleep 0.05; done
	return 1
}
SLURM=
command -v srun >/dev/null && srun -N1 true >/dev/null 2>&1 && SLURM=yes
cd "$T" || exit 1
for i in $(seq "$N"); do
	wait_idle || { echo "bench: the nodes did not come back idle" >&2
		exit 1; }
	s=$(date +%s%N)
	# The time of the last task's exit line, as it reaches the terminal.
	timeout 120 "$B/CilkRun" --tasks $TASKS -- true 2>&1 |
	    while IFS= read -r line; do
		case $line in
		*"exited 0"*) date +%s%N >"$T/last" ;;
		esac
	    done
	e=$(date +%s%N)
	echo "$s $e $(cat "$T/last" 2>/dev/null || echo "$e")" >>"$T/cilk"
	if [ -n "$SLURM" ]; then
		s=$(date +%s%N)
		sbatch --array=0-$((TASKS - 1)) --wait -o /dev/null \
		    --wrap true >/dev/null 2>&1
		e=$(date +%s%N)
		echo "$s $e $e" >>"$T/sbatch"
		s=$(date +%s%N)
		srun -n $TASKS true >/dev/null 2>&1
		e=$(date +%s%N)
		echo "$s $e $e" >>"$T/srun"
	fi
	s=$(date +%s%N)
	for _ in $(seq $TASKS); do /bin/true; done
	e=$(date +%s%N)
	echo "$s $e $e" >>"$T/local"
	[ $((i % 5)) -eq 0 ] && echo "bench: $i of $N batches" >&2
done
python3 - "$T" "$TASKS" <<'PY'
import os, sys
t, tasks = sys.argv[1], int(sys.argv[2])
def lat(name, col):
    p = os.path.join(t, name)
    if not os.path.exists(p):
        return None
    return sorted((int(r[col]) - int(r[0])) / 1e6 for r in
                  (l.split() for l in open(p)) if len(r) == 3)
def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))]
whole, last = lat("cilk", 1), lat("cilk", 2)
print("a batch of %d tasks that run true, 4 idle nodes on loopback, "
      "%d runs" % (tasks, len(whole)))
print("%-44s %10s %10s %10s" % ("", "p50 ms", "p99 ms", "max ms"))
def row(name, v):
    print("%-44s %10.1f %10.1f %10.1f" % (name, pct(v, 0.5), pct(v, 0.99),
          v[-1]))
row("CilkRun --tasks %d -- true, whole command" % tasks, whole)
row("  to the last task's exit line", last)
row("%d local fork+execs of true" % tasks, lat("local", 1))
s, b = lat("srun", 1), lat("sbatch", 1)
if s:
    row("srun -n %d true" % tasks, s)
    row("sbatch --array=0-%d --wait" % (tasks - 1), b)
    print("ratio CilkRun / sbatch --array (p50): %.2f" %
          (pct(whole, 0.5) / pct(b, 0.5)))
else:
    print("Slurm is not installed here: the srun and sbatch comparison "
          "was skipped")
print("ratio p99 / p50 of CilkRun (a tail stall shows here): %.2f" %
      (pct(whole, 0.99) / pct(whole, 0.5)))
PY
