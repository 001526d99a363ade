#!/bin/bash
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
# the loops below look thousands of times: nap, not sleep(1)
. "$top/tests/nap.bash"
nap_init "$log"
run_start=$(date +%s)
export CILKNOW_BUILD="$build" CILKNOW_TOP="$top"
# The package test (0945) packs the plain build, as users get it.
if [ -n "$plainbuild" ]; then
	CILKNOW_PLAIN_BUILD=$(cd "$plainbuild" && pwd)
	export CILKNOW_PLAIN_BUILD
fi
# Debian's programs first: a version manager's shim ahead of python3 on
# the caller's PATH (pyenv's is a chain of bash scripts) cost 0.8 s of
# CPU a call, and the tests call python3 hundreds of times.
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
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

# tally NAME OUTPUT EXIT-STATUS START-TIME [END-TIME] : counts one TAP
# program's results and prints its line: the seconds it ran, and when
# it ended, counted from the start of the run (where the time went).
tally() {
	name=$1; out=$2; rc=$3; start=$4; ended=$(( ${5:-$(date +%s)} - run_start ))
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
		echo "FAIL $name ($p passed, $((f + extra)) failed, exit $rc, ${secs}s, ended +${ended}s)"
		# the failures first, then each with the comments that follow
		# it (its diagnosis): a long test's earlier comments could
		# hide them
		{ grep -E '^not ok' "$out"; awk '
		    /^not ok/ { n = 0; show = 1; print; next }
		    show && /^#/ && n < 40 { n++; print; next }
		    { show = 0 }' "$out" | head -120; } | sed 's/^/    /'
		if [ "$extra" -ne 0 ]; then
			tail -20 "$out" | sed 's/^/    | /'
		fi
	else
		sk=
		[ "$s" -eq 0 ] || sk=", $s skipped"
		echo "ok   $name ($p passed$sk, ${secs}s, ended +${ended}s)"
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
				nap 1
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
		tally "$name" "$b.out" "$rc" $((start + $(date +%s) - end)) \
		    "$end"
	done
}
# The container cluster (tests/cluster/run.sh, make check-cluster): most
# of its time is spent waiting for its machines, which have a network of
# their own.  It skips itself where it cannot run (not root, no
# systemd-nspawn, no image and no archive).  Valgrind's single-threaded
# runs take a core the waiting integration tests leave.
# The short fuzzing runs follow the container cluster (valgrind's
# end, 200 s later, opens the late lane: fuzzers after it ran beside
# the last tests), one at a time.
prev=-
if [ -n "$plainbuild" ]; then
	if [ "${CILKNOW_CLUSTER:-1}" != 0 ]; then
		bg "cluster/run.sh" 900 - bash "$top/tests/cluster/run.sh" \
		    "$plainbuild"
		prev=cluster/run.sh
	fi
	# Niced: it has time to spare (it ended 200 s before the lanes),
	# the lanes' daemons do not.
	bg "valgrind" 900 - nice -n 10 sh "$top/tests/valgrind.sh" \
	    "$plainbuild"
fi
if [ -n "$fuzzbuild" ]; then
	for f in "$fuzzbuild"/fuzz_*; do
		[ -x "$f" ] || continue
		bg "fuzz/$(basename "$f")" 120 "$prev" \
		    nice -n 10 sh "$top/tests/fuzz/short.sh" "$f" 6
		prev="fuzz/$(basename "$f")"
	done
fi

# Integration tests with a line "# chain: WHY" in their leading comment
# share something only with each other (0945 builds packages from the
# build folders; the install tests run make install, which writes the
# sanitized build's samples for the PREFIX each asks): with lanes, they
# start at once beside valgrind, one after another (after valgrind and
# the fuzzers, 0945 ended last of all; run alone at the end, the install
# tests were 20 s of a machine with one core idle).
chained=
if [ "${CILKNOW_LANES:-3}" != 1 ]; then
	cprev=-
	for t in "$top"/tests/integration/[0-9]*.sh; do
		grep -q '^# chain: ' "$t" || continue
		n="integration/$(basename "$t")"
		bg "$n" 600 "$cprev" bash "$t"
		cprev=$n
		chained="$chained $n"
	done
fi

# No two integration tests (nor valgrind.sh) name one loopback port.
run "lint/ports" 60 sh "$top/tests/ports.sh"

# Integration tests named *-beside.sh mostly wait, on loopback ports and
# a munged of their own: they run beside the rest, from the start.
for t in "$top"/tests/integration/[0-9]*-beside.sh; do
	[ -f "$t" ] || continue
	bg "integration/$(basename "$t")" 600 - bash "$t"
done

# Lanes (CILKNOW_LANES, default 3): the unit tests and the integration
# tests run that many at once, each on loopback ports of its own (its
# "# ports:" line; tests/ports.sh checks that no two share one) and in
# a temporary folder of its own.  Most of them wait on daemons; one
# with a line "# cpu: WHY" in its leading comment keeps a core busy (a
# parallel program, hundreds of jobs) and runs with no other such test
# beside it (CILKNOW_CPU_LANES, default 1): three CPU-bound runtime
# tests beside valgrind ran out of their time on a busy machine.  The
# CPU-bound ones start first, the rest fill the other lanes (a unit
# test says it is CPU-bound with " * cpu: WHY" in its source).  Lines
# are printed as the tests end, each with the time it ran.
# CILKNOW_LANES=1: one at a time, in name order.
lanes=${CILKNOW_LANES:-3}
cpu_lanes=${CILKNOW_CPU_LANES:-1}
# Once everything CPU-bound beside the lanes (valgrind, the fuzzers,
# the container cluster, the chained tests) has ended, one more lane
# (CILKNOW_LATE_LANES): the tests left mostly wait on daemons, and
# process accounting showed a third of the machine's CPU unused over
# the run.  Opened while valgrind still ran, the lane made every test
# slower and the run no shorter.
late_lanes=${CILKNOW_LATE_LANES:-$((lanes > 1 ? lanes + 1 : 1))}
# (their files, named once: the loop below looks every 0.2 s, and a
# subshell and tr(1) a name each time were 20,000 processes a run)
late_files=
for n in $bg_names; do
	case $n in *-beside.sh) ;; *) late_files="$late_files $(bg_file "$n").rc" ;; esac
done
for v in "$lanes" "$cpu_lanes" "$late_lanes"; do
	case $v in
	''|*[!0-9]*|0)
		echo "run.sh: CILKNOW_LANES=$lanes CILKNOW_CPU_LANES=$cpu_lanes CILKNOW_LATE_LANES=$late_lanes: want numbers of lanes, 1 or more" >&2
		exit 2 ;;
	esac
done
queue=$log/queue
: >"$queue"
for t in "$build"/tests/*_test; do
	[ -x "$t" ] || continue
	src="$top/tests/unit/$(basename "$t").c"
	if grep -q '^ \* cpu: ' "$src" 2>/dev/null; then
		echo "cpu $t"
	else
		echo "unit $t"
	fi >>"$queue"
done
for t in "$top"/tests/integration/[0-9]*.sh; do
	[ -f "$t" ] || continue
	case $t in *-beside.sh) continue ;; esac
	case " $chained " in *" integration/$(basename "$t") "*) continue ;; esac
	if grep -q '^# cpu: ' "$t"; then
		echo "cpu $t"
	else
		echo "int $t"
	fi >>"$queue"
done
# by_time : the queue's lines on stdin, longest first, as long as each
# took in a make check on 2 cores (tests/durations: "SECONDS NAME"; one
# not named there counts 20 s): the lanes end together, on short tests,
# not on one long test started last (they ended 40 s apart in name
# order).  Ties keep name order.
by_time() {
	if [ -f "$top/tests/durations" ]; then
		awk 'NR == FNR { if ($1 !~ /^#/) d[$2] = $1; next }
		    { n = $2; sub(".*/", "", n)
		      k = ($1 == "unit" || $2 ~ /_test$/ ? "unit/" : "integration/") n
		      print (k in d ? d[k] : 20), $0 }' \
		    "$top/tests/durations" - | sort -s -k1,1nr | cut -d' ' -f2-
	else
		cat
	fi
}
if [ "$lanes" -gt 1 ]; then
	{ grep '^cpu ' "$queue" | by_time
	    grep -v '^cpu ' "$queue" | by_time; } >"$queue.o"
	mv "$queue.o" "$queue"
fi
# lane_start K PATH : starts the queue's Kth test in the background;
# $log/lane.K.rc says "STATUS START END" once it has ended.
lane_start() {
	l_k=$1; l_t=$2
	case $l_t in
	"$build"/tests/*)
		l_name="unit/$(basename "$l_t")"; set -- 300 "$l_t" ;;
	# CILKNOW_TEST_LOCK: a file to flock around each integration test,
	# for suites that share this machine's loopback ports.
	*)	l_name="integration/$(basename "$l_t")"
		if [ -n "${CILKNOW_TEST_LOCK:-}" ]; then
			set -- 300 flock "$CILKNOW_TEST_LOCK" bash "$l_t"
		else
			set -- 300 bash "$l_t"
		fi ;;
	esac
	echo "$l_name" >"$log/lane.$l_k.name"
	l_out="$log/$(echo "$l_name" | tr '/ ' '__').out"
	(
		l_start=$(date +%s)
		timeout -k 5 "$@" >"$l_out" 2>&1
		echo "$? $l_start $(date +%s)" >"$log/lane.$l_k.tmp"
		mv "$log/lane.$l_k.tmp" "$log/lane.$l_k.rc"
	) &
}
# The queue's Kth entry is q_kind_K and q_path_K; q_state_K is "" (not
# started), "run" or "done".
njobs=0
while read -r kind t; do
	njobs=$((njobs + 1))
	eval "q_kind_$njobs=\$kind q_path_$njobs=\$t q_state_$njobs="
done <"$queue"
first=1	# every entry before it has been started
low=1	# every entry before it has ended
tallied=0
while [ "$tallied" -lt "$njobs" ]; do
	busy=0; busy_cpu=0; moved=0
	if [ "$lanes" -ne "$late_lanes" ]; then
		late_left=
		for f in $late_files; do
			[ -e "$f" ] || late_left="$late_left $f"
		done
		late_files=$late_left
		[ -n "$late_files" ] || lanes=$late_lanes
	fi
	k=$low
	while [ "$k" -le "$njobs" ]; do
		eval "st=\$q_state_$k kind=\$q_kind_$k"
		if [ "$st" = run ]; then
			if [ -e "$log/lane.$k.rc" ]; then
				read -r rc s0 e0 <"$log/lane.$k.rc"
				name=$(cat "$log/lane.$k.name")
				# its own time, not the wait for its tally
				tally "$name" "$log/$(echo "$name" | tr '/ ' '__').out" \
				    "$rc" $((s0 + $(date +%s) - e0)) "$e0"
				eval "q_state_$k=done"
				tallied=$((tallied + 1)); moved=1
			else
				busy=$((busy + 1))
				[ "$kind" = cpu ] && busy_cpu=$((busy_cpu + 1))
			fi
		fi
		k=$((k + 1))
	done
	# start what fits, in queue order; a CPU-bound test waits for its
	# lane and the ones behind it go ahead
	k=$first
	while [ "$k" -le "$njobs" ] && [ "$busy" -lt "$lanes" ]; do
		eval "st=\$q_state_$k kind=\$q_kind_$k t=\$q_path_$k"
		if [ -z "$st" ]; then
			if [ "$kind" = cpu ] && [ "$lanes" -gt 1 ] &&
			    [ "$busy_cpu" -ge "$cpu_lanes" ]; then
				k=$((k + 1))
				continue
			fi
			lane_start "$k" "$t"
			eval "q_state_$k=run"
			busy=$((busy + 1)); moved=1
			[ "$kind" = cpu ] && busy_cpu=$((busy_cpu + 1))
		fi
		k=$((k + 1))
	done
	while [ "$first" -le "$njobs" ] &&
	    eval "[ -n \"\$q_state_$first\" ]"; do
		first=$((first + 1))
	done
	while [ "$low" -le "$njobs" ] &&
	    eval "[ \"\$q_state_$low\" = done ]"; do
		low=$((low + 1))
	done
	[ "$moved" -eq 1 ] || nap 0.2
done
run "man/mandoc-lint" 60 sh "$top/tests/lint-man.sh"
# No loop of files that call each other (daemons/*, utils/*).
run "lint/cycles" 60 sh "$top/tests/lint-cycles.sh"
bg_wait

rm -rf "$log"
echo "# tests/run.sh: $(( $(date +%s) - run_start )) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
