#!/bin/bash
# Benchmark: quanta until three jobs are within one node of their fair
# share on a live 24-node CilkLocal cluster (job 1 first on every node,
# then jobs 2 and 3 at once), beside CilkSim's prediction for the same
# P, J and starting split, measured in the same run.
#   tests/bench/fairshare.sh BUILD
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
ROUNDS=${BENCH_ROUNDS:-5}
Q=0.5
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
RUNS=
trap 'for p in $RUNS; do kill -INT $p 2>/dev/null; done; "$B/CilkLocal" stop -d "$T/c" >/dev/null 2>&1; rm -rf "$T"' EXIT
P=$((${BENCH_PORT:-17400} + 130))	# tests/bench/run.sh
"$B/CilkLocal" start -n 24 -d "$T/c" -p $P -o quantum=$Q \
    -o register_interval=1 -o stop_grace=1 >/dev/null || exit 1
export CILKNOW_CONF=$T/c/cilknow.conf
counts() { "$B/CilkPs" | awk 'NR > 1 { printf "%s ", $4 }'; }
within() {
	c=$(counts)
	[ "$(echo "$c" | wc -w)" -eq 3 ] || return 1
	for x in $c; do [ "$x" -ge 7 ] && [ "$x" -le 9 ] || return 1; done
}
idle24() { [ "$("$B/CilkNodes" -s idle | tail -n +2 | wc -l)" -eq 24 ]; }
running24() { [ "$("$B/CilkNodes" -s running | tail -n +2 | wc -l)" -eq 24 ]; }
poll() { for _ in $(seq 1200); do "$@" && return 0; sleep 0.05; done; return 1; }
cd "$T" || exit 1
for r in $(seq "$ROUNDS"); do
	poll idle24 || { echo "bench: nodes not idle" >&2; exit 1; }
	"$B/CilkRun" -- sleep 600 >/dev/null 2>&1 &
	RUNS="$!"
	poll running24 || exit 1
	s=$(date +%s%N)
	"$B/CilkRun" -- sleep 600 >/dev/null 2>&1 &
	RUNS="$RUNS $!"
	"$B/CilkRun" -- sleep 600 >/dev/null 2>&1 &
	RUNS="$RUNS $!"
	poll within || { echo "bench: no convergence in 60 s" >&2; exit 1; }
	echo "$(( ($(date +%s%N) - s) / 1000000 ))" >>"$T/ms"
	for p in $RUNS; do kill -INT "$p"; done
	for p in $RUNS; do wait "$p" 2>/dev/null; done
	RUNS=
	echo "bench: round $r of $ROUNDS" >&2
done
"$build/bin/CilkSim" -P 24 -J 3 --seeds 20 --json >"$T/sim.json" || exit 1
"$build/bin/CilkSim" -P 24 -J 3 --seeds 20 --policy targeted --json \
    >"$T/simt.json" || exit 1
python3 - "$T/ms" "$T/sim.json" "$Q" "$T/simt.json" <<'PY'
import json, sys
ms = sorted(int(l) for l in open(sys.argv[1]))
q = float(sys.argv[3])
sim = json.load(open(sys.argv[2]))
live = ms[len(ms) // 2] / 1000.0 / q
print("fair share, P=24 J=3, quanta until every job is within one")
print("  live cluster (quantum %.1f s, %d rounds): median %.1f quanta "
      "(%.2f s), range %.1f-%.1f" % (q, len(ms), live, ms[len(ms) // 2]
      / 1000.0, ms[0] / 1000.0 / q, ms[-1] / 1000.0 / q))
print("  CilkSim, thesis rule, 20 seeds: median %s quanta" %
      sim["median_quanta"])
print("  CilkSim, targeted rule (the node managers' default), 20 seeds: "
      "median %s quanta" % json.load(open(sys.argv[4]))["median_quanta"])
PY
