#!/bin/bash
# Benchmark of the broker at scale: tests/tools/fakenodes keeps 10^3,
# 10^4 and 10^5 pretend node managers registered (127.2.0.0/16, one
# process) at a 60 s interval; the broker's CPU (% of one core, both
# its processes) and RSS are measured over a window shorter than the
# interval (a rate: the same registrations a second), and CilkNodes'
# time to list every node and only the idle ones.  Then the sustained
# registration rate: what the broker acknowledges a second when offered
# more than it can take.
#   tests/bench/broker.sh BUILD
# Ports: CILKNOW_BENCH_PORT (default 19050) for the broker and the next
# two for the pretend nodes.
set -u
B=${1:-build}
PORT=${CILKNOW_BENCH_PORT:-19050}
WINDOW=${CILKNOW_BENCH_WINDOW:-20}	# seconds measured at each size
SIZES=${CILKNOW_BENCH_SIZES:-1000 10000 100000}
for p in "$B/sbin/CilkJobBroker" "$B/bin/CilkNodes" "$B/tests/fakenodes"; do
	[ -x "$p" ] || { echo "broker.sh: no $p (make all testprogs)" >&2; exit 1; }
done
T=$(mktemp -d /tmp/cilknow-bench.XXXXXX)
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir -p "$T/users"
"$B/bin/CilkKey" generate-cluster "$T/cluster.key" >/dev/null || exit 1
cat >"$T/cilknow.conf" <<EOC
cluster_key = $T/cluster.key
cluster_pub = $T/cluster.pub
user_keys = $T/users
state_dir = $T/state
run_dir = $T/run
broker = 127.0.0.1:$PORT
register_interval = 60
timeout = 5
EOC
chmod 644 "$T/cilknow.conf"
C=$T/cilknow.conf

# ticks PID...: user+system clock ticks of these processes, summed
ticks() { for p in "$@"; do awk '{ print $14 + $15 }' "/proc/$p/stat"; done |
    awk '{ s += $1 } END { print s }'; }
# rss_kb PID...: resident set, summed
rss_kb() { for p in "$@"; do awk '/^VmRSS/ { print $2 }' "/proc/$p/status"; done |
    awk '{ s += $1 } END { print s }'; }
rows() { "$B/bin/CilkNodes" -c "$C" "$@" | tail -n +2 | wc -l; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
HZ=$(getconf CLK_TCK)

start_broker() {
	"$B/sbin/CilkJobBroker" -f -c "$C" >"$T/broker.log" 2>&1 &
	BROKER=$!
	PIDS="$PIDS $BROKER"
	for _ in $(seq 100); do
		ENGINE=$(pgrep -P "$BROKER" | head -1)
		[ -n "$ENGINE" ] && "$B/bin/CilkNodes" -c "$C" >/dev/null 2>&1 &&
		    return 0
		sleep 0.1
	done
	echo "broker.sh: the broker did not start" >&2
	cat "$T/broker.log" >&2
	exit 1
}
stop_broker() {
	kill "$BROKER" 2>/dev/null
	wait "$BROKER" 2>/dev/null
}

printf '%8s %9s %9s %10s %11s %11s\n' nodes "cpu %" "rss MB" "reg/s" \
    "list ms" "idle ms"
for n in $SIZES; do
	start_broker
	base=$(rss_kb "$BROKER" "$ENGINE")
	fill=$(( n / 20000 + 3 ))
	"$B/tests/fakenodes" -c "$C" -n "$n" -B 4 -i 60 -p $((PORT + 1)) \
	    -t $((fill + WINDOW + 30)) >"$T/fakes.out" 2>&1 &
	FAKES=$!
	PIDS="$PIDS $FAKES"
	for _ in $(seq $((fill * 10 + 100))); do
		[ "$(rows)" -ge "$n" ] && break
		sleep 0.1
	done
	sleep 1
	t0=$(ticks "$BROKER" "$ENGINE")
	s0=$(ms)
	sleep "$WINDOW"
	t1=$(ticks "$BROKER" "$ENGINE")
	s1=$(ms)
	cpu=$(echo "$t0 $t1 $s0 $s1 $HZ" |
	    awk '{ printf "%.1f", ($2 - $1) / $5 / (($4 - $3) / 1000) * 100 }')
	rss=$(rss_kb "$BROKER" "$ENGINE")
	l0=$(ms); got=$(rows); l1=$(ms)
	i0=$(ms); idle=$(rows -s idle); i1=$(ms)
	printf '%8s %9s %9s %10s %11s %11s\n' "$got" "$cpu" \
	    "$(echo "$rss" | awk '{ printf "%.1f", $1 / 1024 }')" \
	    "$(( n / 60 ))" "$((l1 - l0))" "$((i1 - i0)) ($idle)"
	echo "$n $base $rss" >>"$T/mem"
	kill "$FAKES" 2>/dev/null
	wait "$FAKES" 2>/dev/null
	stop_broker
done
awk 'NR == 1 { b = $3; n0 = $1 } END { if (NR > 1 && $1 > n0)
    printf "memory: %.0f bytes a node (RSS from %d to %d nodes)\n",
    ($3 - b) * 1024 / ($1 - n0), n0, $1 }' "$T/mem"

# Sustained rate: 100,000 nodes offered at 1 s (100,000 a second).
start_broker
"$B/tests/fakenodes" -c "$C" -n 100000 -i 1 -R 100000 -p $((PORT + 1)) \
    -t 10 >"$T/rate.out" 2>&1
stop_broker
awk '{ gsub(",", ""); printf "sustained: %s registrations sent in 10 s, " \
    "%d acknowledged a second\n", $4, $6 / 10 }' "$T/rate.out"
