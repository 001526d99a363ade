#!/bin/sh
# Runs the whole suite and ends with "N passed, N failed, N skipped".
#   tests/run.sh BUILD [FUZZBUILD [PLAINBUILD]]
# PLAINBUILD, an unsanitized build, is run under valgrind.
# Unit tests and integration scripts speak TAP; every "ok" line is a pass,
# every "not ok" a failure, and a program that dies or exits non-zero
# without saying why counts as one more failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
fuzzbuild=${2:-}
plainbuild=${3:-}
passed=0
failed=0
skipped=0
log=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-check.XXXXXX")
export CILKNOW_BUILD="$build" CILKNOW_TOP="$top"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# run NAME TIMEOUT CMD... : runs one TAP program and tallies it.
run() {
	name=$1; limit=$2; shift 2
	out="$log/$(echo "$name" | tr '/ ' '__').out"
	start=$(date +%s)
	timeout -k 5 "$limit" "$@" >"$out" 2>&1
	tally "$name" "$out" $? "$start"
}

# tally NAME OUTPUT EXIT-STATUS START-TIME : counts one TAP program's
# results and prints its line.
tally() {
	name=$1; out=$2; rc=$3; start=$4
	# "ok N # SKIP why" is TAP's skip: neither a pass nor a failure
	s=$(grep -Ec '^ok [0-9]* *-? *# *SKIP' "$out")
	p=$(( $(grep -c '^ok ' "$out") - s ))
	f=$(grep -c '^not ok ' "$out")
	extra=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		extra=1
	fi
	if [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$s" -eq 0 ]; then
		extra=1		# a test that ran nothing is a failure
	fi
	passed=$((passed + p))
	skipped=$((skipped + s))
	failed=$((failed + f + extra))
	secs=$(( $(date +%s) - start ))
	if [ $((f + extra)) -ne 0 ]; then
		echo "FAIL $name ($p passed, $((f + extra)) failed, exit $rc, ${secs}s)"
		grep -E '^(not ok|#)' "$out" | head -40 | sed 's/^/    /'
		if [ "$extra" -ne 0 ]; then
			tail -20 "$out" | sed 's/^/    | /'
		fi
	else
		sk=
		[ "$s" -eq 0 ] || sk=", $s skipped"
		echo "ok   $name ($p passed$sk, ${secs}s)"
		grep -E '^ok .*# *SKIP' "$out" | sed 's/^/    /'
	fi
}

# bg NAME TIMEOUT AFTER CMD... : runs one TAP program beside the rest,
# once the one named AFTER has ended ("-": at once); bg_wait tallies
# each when all else is done.  What runs beside must not share loopback
# ports with the integration tests; the CPU-bound ones follow one
# another, to leave a core to the tests.
bg_names=
bg_file() { echo "$log/bg.$(echo "$1" | tr '/ ' '__')"; }
bg() {
	name=$1; limit=$2; after=
	[ "$3" = - ] || after="$(bg_file "$3").rc"
	shift 3
	b=$(bg_file "$name")
	(
		if [ -n "$after" ]; then
			# bounded: the one before has a time limit too
			for _ in $(seq 1800); do
				[ -e "$after" ] && break
				sleep 1
			done
		fi
		start=$(date +%s)
		timeout -k 10 "$limit" "$@" >"$b.out" 2>&1 </dev/null
		echo "$? $start $(date +%s)" >"$b.rc"
	) &
	bg_names="$bg_names $name"
}
bg_wait() {
	wait
	for name in $bg_names; do
		b=$(bg_file "$name")
		read -r rc start end <"$b.rc" || { rc=1; start=0; end=0; }
		# tally reports the time it ran, not the wait for it
		tally "$name" "$b.out" "$rc" $((start + $(date +%s) - end))
	done
}
# The container cluster (tests/cluster/run.sh, make check-cluster): most
# of its time is spent waiting for its machines, which have a network of
# their own.  It skips itself where it cannot run (not root, no
# systemd-nspawn, no image and no archive).  Valgrind's single-threaded
# runs take a core the waiting integration tests leave.
# The short fuzzing runs follow valgrind, one at a time.
prev=-
if [ -n "$plainbuild" ]; then
	[ "${CILKNOW_CLUSTER:-1}" = 0 ] ||
	    bg "cluster/run.sh" 900 - bash "$top/tests/cluster/run.sh" \
	    "$plainbuild"
	bg "valgrind" 900 - sh "$top/tests/valgrind.sh" "$plainbuild"
	prev=valgrind
fi
if [ -n "$fuzzbuild" ]; then
	for f in "$fuzzbuild"/fuzz_*; do
		[ -x "$f" ] || continue
		bg "fuzz/$(basename "$f")" 120 "$prev" \
		    sh "$top/tests/fuzz/short.sh" "$f" 10
		prev="fuzz/$(basename "$f")"
	done
fi

# Integration tests named *-beside.sh mostly wait, on loopback ports and
# a munged of their own: they run beside the rest, from the start.
for t in "$top"/tests/integration/[0-9]*-beside.sh; do
	[ -f "$t" ] || continue
	bg "integration/$(basename "$t")" 600 - bash "$t"
done

for t in "$build"/tests/*_test; do
	[ -x "$t" ] || continue
	run "unit/$(basename "$t")" 300 "$t"
done
for t in "$top"/tests/integration/[0-9]*.sh; do
	[ -f "$t" ] || continue
	case $t in *-beside.sh) continue ;; esac
	# CILKNOW_TEST_LOCK: a file to flock around each integration test,
	# for suites that share this machine's loopback ports.
	if [ -n "${CILKNOW_TEST_LOCK:-}" ]; then
		run "integration/$(basename "$t")" 300 \
		    flock "$CILKNOW_TEST_LOCK" bash "$t"
	else
		run "integration/$(basename "$t")" 300 bash "$t"
	fi
done
run "man/mandoc-lint" 60 sh "$top/tests/lint-man.sh"
bg_wait

rm -rf "$log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
