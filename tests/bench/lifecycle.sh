#!/bin/bash
# Benchmark: submit -> first worker running, on an idle 4-node CilkLocal
# cluster over loopback UDP, for N jobs; beside it, the time to fork and
# exec the same program locally, measured in the same run.
#   tests/bench/lifecycle.sh BUILD
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
N=${BENCH_JOBS:-50}
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
trap '"$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
P=$((${BENCH_PORT:-17400} + 40))	# tests/bench/run.sh
"$B/CilkLocal" start -n 4 -d "$T/c" -p $P -o register_interval=1 \
    -o timeout=3 >/dev/null || exit 1
export CILKNOW_CONF=$T/c/cilknow.conf
idle4() { [ "$("$B/CilkNodes" -s idle 2>/dev/null | tail -n +2 | wc -l)" -eq 4 ]; }
wait_idle() {
	for _ in $(seq 200); do idle4 && return 0; sleep 0.05; done
	return 1
}
# The program: note when it started, then exit.
cat >"$T/prog.sh" <<'EOS'
#!/bin/sh
date +%s%N >>"$1"
EOS
chmod 755 "$T/prog.sh"
cd "$T" || exit 1
for i in $(seq "$N"); do
	wait_idle || { echo "bench: nodes did not come back idle" >&2; exit 1; }
	s=$(date +%s%N)
	timeout 60 "$B/CilkRun" --tasks 1 -- "$T/prog.sh" "$T/run$i" \
	    >/dev/null 2>&1
	echo "$s $(sort -n "$T/run$i" | head -1)" >>"$T/remote"
	s=$(date +%s%N)
	"$T/prog.sh" "$T/local$i"
	echo "$s $(cat "$T/local$i")" >>"$T/local"
	[ $((i % 10)) -eq 0 ] && echo "bench: $i of $N jobs" >&2
done
python3 - "$T/remote" "$T/local" <<'PY'
import sys
def lat(path):
    v = sorted((int(b) - int(a)) / 1e6 for a, b in
               (l.split() for l in open(path) if len(l.split()) == 2))
    return v[len(v) // 2], v[min(len(v) - 1, int(0.99 * len(v)))], len(v)
rm, rp, rn = lat(sys.argv[1])
lm, lp, ln = lat(sys.argv[2])
print("submit -> first worker running, 4 idle nodes on loopback (%d jobs)" % rn)
print("%-28s %10s %10s" % ("", "median ms", "p99 ms"))
print("%-28s %10.1f %10.1f" % ("CilkRun, first worker", rm, rp))
print("%-28s %10.1f %10.1f" % ("local fork+exec", lm, lp))
print("%-28s %10.1f %10.1f" % ("ratio", rm / lm, rp / lp))
PY
