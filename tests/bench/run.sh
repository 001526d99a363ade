#!/bin/sh
# make bench: every benchmark in tests/bench, each printing its figures
# as ratios against a baseline it measured in the same run.
# BENCH_PORT (default 17400): the benchmarks' loopback UDP ports are
# BENCH_PORT to BENCH_PORT+599, each script its own offsets.
dir=$(dirname "$0")
build=$1
export BENCH_PORT=${BENCH_PORT:-17400}
rc=0
for b in "$dir"/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	bash "$b" "$build" || rc=1
done
exit $rc
