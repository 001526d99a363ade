#!/bin/sh
# The longer fuzzing session of `make fuzz`:
#   tests/fuzz/run.sh BUILD SECONDS
# Runs every BUILD/fuzz_* for SECONDS each on a corpus kept in
# BUILD/corpus/NAME (seeded from tests/fuzz/corpus/NAME the first time),
# writes crashing inputs to BUILD/artifacts/NAME/, and reports TAP.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 BUILD SECONDS" >&2
	exit 2
fi
build=$(cd "$1" && pwd) || exit 1
secs=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${ASAN_OPTIONS:=detect_leaks=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS
n=0
failed=0
for bin in "$build"/fuzz_*; do
	[ -x "$bin" ] || continue
	n=$((n + 1))
	name=$(basename "$bin")
	corpus="$build/corpus/$name"
	art="$build/artifacts/$name"
	mkdir -p "$corpus" "$art"
	if [ -d "$top/tests/fuzz/corpus/$name" ]; then
		cp -n "$top/tests/fuzz/corpus/$name"/* "$corpus/" 2>/dev/null
	fi
	log="$art/log"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	    -max_len=8192 -print_final_stats=1 -artifact_prefix="$art/" \
	    "$corpus" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
	    tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $n - fuzz $name: $runs runs in ${secs}s, no crash"
		echo "# $rate runs/s; corpus $corpus holds" \
		    "$(ls "$corpus" | wc -l) inputs"
	else
		failed=$((failed + 1))
		echo "not ok $n - fuzz $name: exit $rc after ${runs:-?} runs"
		grep -v '^#[0-9]* *\(NEW\|REDUCE\|pulse\|INITED\)' "$log" |
		    tail -80 | sed 's/^/# /'
		echo "# crashing input and log in $art"
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
