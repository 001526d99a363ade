#!/bin/sh
# A short, bounded fuzzing run for make check, reported as TAP:
#   tests/fuzz/short.sh FUZZER [SECONDS]
# Runs FUZZER (a libFuzzer binary) for SECONDS (default 20, at most
# 2000000 inputs) on a fresh temporary corpus seeded from
# tests/fuzz/corpus/NAME/ if there is one, and prints
#   ok 1 - fuzz NAME: N runs, no crash
# or "not ok 1 - ..." with the crash report as # comments; then "1..1".
# On a crash the work folder (with the crashing input) is kept.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
	echo "usage: $0 FUZZER [SECONDS]" >&2
	exit 2
fi
bin=$1
secs=${2:-20}
name=$(basename "$bin")
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-fuzz.XXXXXX") || exit 1
mkdir "$work/corpus"
seeds="$top/tests/fuzz/corpus/$name"
if [ -d "$seeds" ]; then
	cp "$seeds"/* "$work/corpus/" 2>/dev/null
fi
: "${ASAN_OPTIONS:=detect_leaks=1}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS

"$bin" -max_total_time="$secs" -runs=2000000 -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
	echo "ok 1 - fuzz $name: $runs runs, no crash"
	echo "# $rate runs/s, corpus of $(ls "$work/corpus" | wc -l) inputs"
	rm -rf "$work"
else
	echo "not ok 1 - fuzz $name: exit $rc after ${runs:-?} runs"
	grep -v '^#[0-9]* *\(NEW\|REDUCE\|pulse\|INITED\)' "$work/log" |
	    tail -80 | sed 's/^/# /'
	echo "# inputs and log kept in $work"
fi
echo "1..1"
[ "$rc" -eq 0 ]
