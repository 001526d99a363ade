#!/bin/bash
# Benchmark: the owner's sovereignty, on CilkLocal over loopback UDP.
#  1. Retreat latency: the owner comes back (the sensor file says
#     idletime=0, or a key press arrives on an input device, here a
#     FIFO) -> the worker is gone; median and p99 over N rounds, beside
#     the baseline of signalling and reaping a local process with
#     SIGQUIT, measured in the same run.
#  2. Owner interference: a CPU-bound "owner" program pinned to one core,
#     alone and with a busy worker pinned to the same core, started by
#     the node manager at its configured priority (SCHED_IDLE and nice
#     19; nice 19 only), and beside a plain nice-0 competitor; as ratios
#     of the time alone.
#   tests/bench/idle.sh BUILD
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
N=${BENCH_ROUNDS:-20}
P=${BENCH_PORT:-17400}	# tests/bench/run.sh: P+240 .. P+291
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# the daemons' service user reads what is in here
C=
trap '[ -n "$C" ] && "$B/CilkLocal" stop -d "$C" >/dev/null 2>&1; rm -rf "$T"' EXIT
now() { date +%s%N; }
poll() {	# poll TENTHS CMD... : until CMD succeeds, every 2 ms
	end=$(( $(now) + $1 * 100000000 )); shift
	while [ "$(now)" -lt "$end" ]; do "$@" && return 0; sleep 0.002; done
	return 1
}
cluster() {	# cluster DIR PORT OPTS... : a 1-node CilkLocal cluster
	C=$1
	"$B/CilkLocal" start -n 1 -d "$1" -p "$2" -o register_interval=1 \
	    -o stop_grace=1 -o timeout=3 "${@:3}" >/dev/null || exit 1
	export CILKNOW_CONF=$1/cilknow.conf
}
idle() { "$B/CilkNodes" -s idle 2>/dev/null | grep -q 127.0.0.2; }
stats() {	# stats FILE LABEL : median and p99 of ns in FILE, in ms
	python3 - "$1" "$2" <<'PY'
import sys
v = sorted(int(l) / 1e6 for l in open(sys.argv[1]) if l.strip())
m, p = v[len(v) // 2], v[min(len(v) - 1, int(0.99 * len(v)))]
print("%-36s %9.1f %9.1f %5d" % (sys.argv[2], m, p, len(v)))
PY
}

# --- 1. Retreat latency -------------------------------------------------
cd "$T" || exit 1
rounds() {	# rounds FLIP UNFLIP OUT : N rounds of a worker and its retreat
	for i in $(seq "$N"); do
		poll 200 idle || { echo "bench: node not idle" >&2; exit 1; }
		rm -f "$T/w.pid"
		"$B/CilkRun" -- sh -c "echo \$\$ >'$T/w.pid'; exec sleep 300" \
		    >/dev/null 2>&1 &
		run=$!
		poll 200 test -s "$T/w.pid" || { echo "bench: no worker (round $i, $3)" >&2; cat "$C/nodes/127.0.0.2/log" | tail -5 >&2; exit 1; }
		w=$(cat "$T/w.pid")
		s=$(now)
		$1
		poll 100 sh -c "! kill -0 $w 2>/dev/null" || { echo "bench: worker stayed" >&2; exit 1; }
		echo $(( $(now) - s )) >>"$3"
		$2
		kill -INT $run; wait $run 2>/dev/null
	done
}
S=$T/c1/nodes/127.0.0.2/sensors
flip() { echo idletime=0 >"$S"; }
unflip() { printf 'idletime=1000000\nload=0,0,0\n' >"$S"; }
cluster "$T/c1" $((P + 240))
rounds flip unflip "$T/flip"
"$B/CilkLocal" stop -d "$T/c1" >/dev/null 2>&1
mkfifo "$T/kbd"
cluster "$T/c2" $((P + 260)) -o input_devices="$T/kbd"
"$B/CilkPred" always add idletime=1 >/dev/null || exit 1
press() {
	python3 -c 'import struct,sys
f = open(sys.argv[1], "wb", buffering=0)
f.write(struct.pack("@llHHi", 0, 0, 1, 30, 1) + struct.pack("@llHHi", 0, 0, 0, 0, 0))' "$T/kbd"
}
rounds press : "$T/press"
"$B/CilkLocal" stop -d "$T/c2" >/dev/null 2>&1
C=
# Baseline: SIGQUIT to a local sleep and see it gone, with the same poll.
# (bash reports each "Quit" on stderr whenever it reaps: silenced.)
# The clock starts once the child runs sleep: until env has made SIGQUIT
# fatal again (a background job of a script ignores it), the signal
# would be lost and the round would wait out the poll.
for i in $(seq "$N"); do
	env --default-signal=QUIT sleep 300 & p=$!
	poll 100 grep -qx sleep "/proc/$p/comm"
	s=$(now)
	kill -QUIT $p
	poll 100 sh -c "! kill -0 $p 2>/dev/null"
	echo $(( $(now) - s )) >>"$T/local"
	wait $p
done 2>/dev/null
echo "retreat: owner back -> worker gone, 1 node on loopback ($N rounds)"
printf '%-36s %9s %9s %5s\n' "" "median ms" "p99 ms" "n"
stats "$T/flip" "sensor file flip (1 s poll)"
stats "$T/press" "key press on an input device"
stats "$T/local" "baseline: local SIGQUIT and reap"
python3 - "$T/flip" "$T/press" "$T/local" <<'PY'
import sys
med = lambda f: sorted(int(l) for l in open(f) if l.strip())[sum(1 for _ in open(f)) // 2]
b = med(sys.argv[3])
print("ratio to baseline (median): sensor flip %.0f, key press %.0f"
      % (med(sys.argv[1]) / b, med(sys.argv[2]) / b))
PY

# --- 2. Owner interference ----------------------------------------------
command -v taskset >/dev/null || { echo "bench: no taskset; interference skipped"; exit 0; }
cat >"$T/owner.py" <<'PY'
import time
t = time.perf_counter()
x = 0
for i in range(6000000):
    x += i * i
print("%.0f" % ((time.perf_counter() - t) * 1e9))
PY
owner() { taskset -c 0 python3 "$T/owner.py"; }
spin() { exec taskset -c 0 sh -c 'while :; do :; done'; }
median_of() { # median_of K CMD... : median of K runs of CMD's printed ns
	for _ in $(seq "$1"); do "${@:2}"; done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
K=${BENCH_OWNER_RUNS:-5}
alone=$(median_of "$K" owner)
with_worker() {	# with_worker PORT SCHED_IDLE : owner's time with a worker
	cluster "$T/w$1" "$1" -o worker_sched_idle="$2"
	poll 200 idle || exit 1
	"$B/CilkRun" -- taskset -c 0 sh -c 'while :; do :; done' >/dev/null 2>&1 &
	run=$!
	poll 200 sh -c "'$B/CilkNodes' -s running | grep -q 127.0.0.2" || exit 1
	sleep 0.5
	median_of "$K" owner
	kill -INT $run; wait $run 2>/dev/null
	"$B/CilkLocal" stop -d "$T/w$1" >/dev/null 2>&1
	C=
}
idle_w=$(with_worker $((P + 280)) yes)
nice_w=$(with_worker $((P + 290)) no)
spin & sp=$!
plain=$(median_of "$K" owner)
kill $sp; wait $sp 2>/dev/null
echo "owner interference: CPU-bound owner on core 0 ($K runs, median)"
python3 - "$alone" "$idle_w" "$nice_w" "$plain" <<'PY'
import sys
a, i, n, p = (int(x) for x in sys.argv[1:])
print("%-40s %9s %7s" % ("", "owner ms", "ratio"))
for label, v in (("alone", a), ("+ worker, SCHED_IDLE and nice 19", i),
                 ("+ worker, nice 19 only", n), ("+ plain nice-0 competitor", p)):
    print("%-40s %9.0f %7.2f" % (label, v / 1e6, v / a))
PY
