#!/bin/bash
# Stealing worker to worker in programs of threads (cilknow(3),
# "Stealing"): on a 2-node CilkLocal cluster cilkfib, cilksort, pi and
# matmul (halves of cn_for loops, whose body and combine travel as
# offsets into the program) print their serial twins' answers, and a worker (not the
# root) stole closures, as the job's statistics (CILKNOW_STATS=1) say;
# bigvalues' values of 1 MiB come back from its thieves whole.
# A worker running another executable than the root's is refused.  A
# job without parallelism is capped at its root by its workers'
# heartbeats (they starve), as a program of tasks is by its steals.
# Then a thief is SIGKILLed while it holds a closure stolen from the
# root: the root runs that closure again (closures re-run > 0, a worker
# lost) and the answer is still right.  Every job exits 0 and leaves no
# worker behind.
# ports: 20620-20629
. "$(dirname "$0")/lib.sh"
export CILKNOW_SBIN=$SBIN
cd "$T" || exit 1

last() { grep -E '^-?[0-9.]+$' "$1" | tail -1; }
# no_workers FILE : no worker of the job in FILE is left (on a busy
# machine, with a sanitizer's exit, a worker takes a while);
# says what is left when there is
no_workers() {
	wait_for 60 eval "[ -z \"\$(worker_pids $1)\" ]" && return 0
	for p in $(worker_pids "$1"); do
		echo "# left: $(ps -o pid=,stat=,etime=,wchan=,args= -p "$p" | cut -c1-150)"
	done
	return 1
}
# stat FILE WORDS : the number before WORDS on the job's threads line
stat_of() {
	sed -n "s/.*cilknow: threads: .* \([0-9][0-9]*\) $2.*/\1/p" "$1" |
	    tail -1
}

D=$T/cluster
# Workers at nice 0 (worker_nice), not SCHED_IDLE: on a busy test
# machine an idle-class worker may not run at all before a small job
# ends, and one at nice 19 gets about 1.5% of a processor.
"$BIN/CilkLocal" start -n 2 -d "$D" -p 20620 -o register_interval=1 \
    -o timeout=2 $BUSY_MACHINE_WORKERS >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_idle() { test "$("$BIN/CilkNodes" -s idle | tail -n +2 | wc -l)" -eq 2; }
wait_for 20 nodes_idle
ok $? "2 idle nodes"

# The root waits for both workers, so that there is someone to steal.
export CILKNOW_MIN_WORKERS=2 CILKNOW_STATS=1
# Sizes that keep the root busy a second or more (pi 10^7 was 0.05 s of
# work, over before a thief asked); a second, larger size when the
# first saw no steal: on a machine busy with other tests the root can
# finish a small job before a thief gets the processor to ask.
for job in "cilkfib 30 33" "cilksort 1000000 3000000" "pi 200000000 800000000" \
    "matmul 400 800"; do
	set -- $job
	prog=$1
	for size in "$2" "$3"; do
		out=$T/c-$prog-$size.out
		"$TOOLS/${prog}_serial" "$size" >"$T/$prog-$size.want" 2>&1
		start "c-$prog-$size" "$BIN/$prog" "$size"
		P=$LAST_PID
		wait_for 180 eval "! kill -0 $P"
		ok $? "$prog $size ends on the cluster"
		wait "$P"
		exit_is $? 0 "$prog $size exits 0"
		got=$(last "$out")
		[ -n "$got" ] && [ "$got" = "$(last "$T/$prog-$size.want")" ]
		ok $? "$prog $size prints $got, as ${prog}_serial"
		n=$(grep -c 'joined from [0-9]' "$out")
		[ "$n" -ge 2 ]
		ok $? "$prog: both workers joined ($n)"
		contains "$out" 'cilknow: threads: [0-9]+ run' \
		    "$prog: the job's statistics are printed"
		grep 'cilknow: ' "$out" | sed 's/^/# /'
		no_workers "$out"
		ok $? "$prog leaves no worker behind"
		wait_for 60 nodes_idle
		ok $? "the nodes are idle again"
		stolen=$(stolen_in "$out")
		[ "$stolen" -gt 0 ] && break
		echo "# $prog $size: no steal seen; once more, larger"
	done
	[ "$stolen" -gt 0 ]
	ok $? "$prog: workers other than the root stole closures ($stolen counted)"
done

# Values of CN_VALUE_MAX (1 MiB) from stolen children travel back in
# chunks: every byte of each arrives in place (the answer counts the
# whole ones), and the root's count of bytes moved says they crossed.
for count in 48 64; do
	out=$T/c-bigvalues-$count.out
	start "c-bigvalues-$count" "$TOOLS/bigvalues" "$count"
	P=$LAST_PID
	wait_for 180 eval "! kill -0 $P"
	ok $? "bigvalues $count ends on the cluster"
	wait "$P"
	exit_is $? 0 "bigvalues $count exits 0"
	answer_is "$out" "$count" "bigvalues: all $count values of 1 MiB came whole"
	no_workers "$out"
	ok $? "bigvalues leaves no worker behind"
	wait_for 60 nodes_idle
	ok $? "the nodes are idle again"
	moved=$(stat_of "$out" "bytes moved")
	[ "$(stolen_in "$out")" -gt 0 ] && [ "${moved:-0}" -ge 1048576 ] && break
	echo "# bigvalues $count: no value crossed; once more, larger"
done
[ "${moved:-0}" -ge 1048576 ]
ok $? "bigvalues: stolen children's values crossed ($moved bytes moved)"

# A worker whose executable is not the root's is refused (a program
# rebuilt while its job runs): its closures could name other code.  The
# nodes are busy while the root starts from one file and joins; the
# root is stopped (its clearinghouse answers on), the file replaced by
# a copy with a byte more, and the nodes' new workers run that and are
# refused.  Continued, the root ends alone, right.
unset CILKNOW_MIN_WORKERS
for n in 127.0.0.2 127.0.0.3; do
	printf 'idletime=0\nusers=1\nload=0,0,0\n' >"$D/nodes/$n/sensors"
done
nodes_busy() { test "$("$BIN/CilkNodes" -s busy | tail -n +2 | wc -l)" -eq 2; }
wait_for 20 nodes_busy
ok $? "both nodes busy"
cp "$BIN/cilkfib" "$T/fib"
"$TOOLS/cilkfib_serial" 36 >"$T/fib.want" 2>&1
start fib "$T/fib" 36
P=$LAST_PID
wait_for 30 grep -q 'worker 1 joined from root' "$T/fib.out"
ok $? "the root joined its clearinghouse"
kill -STOP "$P"
ok $? "the root stopped"
{ cat "$BIN/cilkfib"; echo; } >"$T/fib.new" && chmod 755 "$T/fib.new" &&
    mv "$T/fib.new" "$T/fib"
ok $? "its executable replaced by another"
for n in 127.0.0.2 127.0.0.3; do
	printf 'idletime=1000000\nusers=0\nload=0,0,0\n' >"$D/nodes/$n/sensors"
done
wait_for 120 grep -q 'runs another executable than the job.s: refused' \
    "$T/fib.out"
ok $? "the clearinghouse refuses a worker running the new one"
wait_for 60 grep -q 'the clearinghouse refused this process: it runs another executable' \
    "$T/fib.out"
ok $? "the refused worker says why"
kill -CONT "$P"
ok $? "the root continued"
wait_for 180 eval "! kill -0 $P"
ok $? "the job ends"
wait "$P"
exit_is $? 0 "cilkfib 36 exits 0"
got=$(last "$T/fib.out")
[ -n "$got" ] && [ "$got" = "$(last "$T/fib.want")" ]
ok $? "cilkfib 36 prints $got, as cilkfib_serial"
! grep -q 'joined from 127' "$T/fib.out"
ok $? "no worker joined"
grep -E 'Cilk|cilknow' "$T/fib.out" | sed 's/^/# /'
no_workers "$T/fib.out"
ok $? "no worker is left behind"
wait_for 60 nodes_idle
ok $? "the nodes are idle again"
export CILKNOW_MIN_WORKERS=2

# No parallelism (a root thread that sleeps): the workers' heartbeats
# say they starve, and the job is capped at the root (CilkPs MAX 1 or
# 2: cn_useful rounds up).
unset CILKNOW_MIN_WORKERS
start narrow "$TOOLS/narrowthreads" 300
P=$LAST_PID
capped() { "$BIN/CilkPs" | grep -Eq "^ *[0-9]+ +$(id -un) +127\.0\.0\.1 +[0-9]+ +[12] +[0-9]+ .*narrowthreads"; }
wait_for 90 capped
ok $? "a program of threads that cannot use its workers is capped (CilkPs MAX)" || {
	"$BIN/CilkPs" | sed 's/^/#   ps | /'
	tail -n 20 "$T/narrow.out" | sed 's/^/#   narrow | /'
}
contains "$T/narrow.out" "useful workers about [12]$" \
    "its job manager took the estimate from the clearinghouse"
stop "$P"
! kill -0 "$P" 2>/dev/null
ok $? "narrowthreads is stopped"
no_workers "$T/narrow.out"
ok $? "no worker is left behind"
wait_for 60 nodes_idle
ok $? "the nodes are idle again"
export CILKNOW_MIN_WORKERS=2

# A thief killed while it holds the root's closure: it runs again.
N=35
"$TOOLS/cilkfib_serial" $N >"$T/fault.want" 2>&1
start fault "$BIN/cilkfib" $N
P=$LAST_PID
stole() { grep -q 'stole a closure from the root' "$T/fault.out"; }
wait_for 120 stole
ok $? "a worker stole a closure from the root"
w=$(sed -n 's/.*cilknow: worker \([0-9]*\) stole a closure from the root.*/\1/p' \
    "$T/fault.out" | head -1)
wpid=$(sed -n "s/.*worker $w joined from [^ ]* (pid \([0-9]*\));.*/\1/p" \
    "$T/fault.out" | head -1)
if [ -z "$wpid" ] || ! kill -0 "$wpid" 2>/dev/null; then
	# Seen once: the pid it joined with was gone while it still ran.
	# Then it is the process of this job's clearinghouse port whose
	# node (CILKNOW_NODE) is the one it joined from.
	echo "# pid $wpid of worker $w is not there; looking by node"
	port=$(sed -n 's/.*CilkChouse: listening on [^ ]*:\([0-9]*\).*/\1/p' \
	    "$T/fault.out" | head -1)
	node=$(sed -n "s/.*worker $w joined from \([^ ]*\) (pid.*/\1/p" \
	    "$T/fault.out" | head -1)
	for p in $(pgrep -f -- "-Port=$port -Conf="); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
		    grep -qx "CILKNOW_NODE=$node" && wpid=$p
	done
fi
[ -n "$wpid" ] && kill -KILL "$wpid"
ok $? "SIGKILL to the thief, worker $w (pid $wpid)"
wait_for 300 eval "! kill -0 $P"
ok $? "cilkfib $N ends after its thief was killed"
wait "$P"
exit_is $? 0 "cilkfib $N exits 0"
got=$(last "$T/fault.out")
[ -n "$got" ] && [ "$got" = "$(last "$T/fault.want")" ]
ok $? "cilkfib $N prints $got, as cilkfib_serial"
contains "$T/fault.out" "worker $w is lost: [0-9]+ closures it stole run again here" \
    "the root ran the lost thief's closures again"
rerun=$(stat_of "$T/fault.out" 'closures re-run')
[ -n "$rerun" ] && [ "$rerun" -gt 0 ]
ok $? "closures re-run: $rerun"
lost=$(stat_of "$T/fault.out" 'workers lost')
[ -n "$lost" ] && [ "$lost" -ge 1 ]
ok $? "workers lost: $lost"
grep 'cilknow: ' "$T/fault.out" | sed 's/^/# /'
no_workers "$T/fault.out"
ok $? "no worker is left behind"
wait_for 60 nodes_idle
ok $? "the nodes are idle again"
finish
