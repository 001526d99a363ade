#!/bin/bash
# Resource requests (DESIGN §11: --cpus, --mem) on a CilkLocal cluster of
# 3 workstations of 4 processors: 127.0.0.2 lends 4 processors and
# 1000 MiB, 127.0.0.3 lends 4 and 8000 MiB, 127.0.0.4 8000 MiB but only
# 2 processors (its owner's load is 2):
#  1. nodes report the memory they lend (CilkNodes --json mem_mb);
#  2. bad --cpus and --mem are exit 2 with one line, nothing submitted;
#  3. --tasks 2 --cpus 3 --mem 4G runs only on 127.0.0.3, one task at a
#     time (3 of its 4 processors each), and the task sees CILKNOW_CPUS=3
#     and CILKNOW_MEM_MB=4096; the node lends 4096 MiB less meanwhile,
#     and all of it and its processors again after;
#  4. a job that fits no node (--cpus 5, --mem 9000) runs nowhere, and
#     CilkPs shows REASON no-fit;
#  5. on a cluster full of a plain job, room is made for --cpus 3: three
#     of the plain job's workers on one node stop (their tasks run
#     again), the big task runs and the plain job keeps the rest;
#  6. a node manager that stops is named in the broker's log when it is
#     forgotten.
# ports: 19880-19899
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19880
"$BIN/CilkLocal" start -n 3 -s 4 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o quantum=0.3 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3 -s 4"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
# The default predicate: an owner's load of 2 keeps 2 of 4 (DESIGN §6).
printf 'idletime=1000000\nmem=1000\n' >"$D/nodes/127.0.0.2/sensors"
printf 'idletime=1000000\nmem=8000\n' >"$D/nodes/127.0.0.3/sensors"
printf 'idletime=1000000\nload=2,2,2\nmem=8000\n' >"$D/nodes/127.0.0.4/sensors"

# node HOST FIELD: running, lent, total (CilkNodes' SLOTS) or mem (the
# JSON's mem_mb) of that node; sed and awk, as python is slow to start
node() {
	case $2 in
	mem)	"$BIN/CilkNodes" --json | sed -n "s/.*\"host\": \"$1\"[^}]*}[^}]*\"mem_mb\": \([0-9]*\).*/\1/p" ;;
	*)	"$BIN/CilkNodes" | awk -v h="$1" -v f="$2" '$2 == h {
		    split($4, a, "/")
		    print f == "running" ? a[1] : f == "lent" ? a[2] : a[3] }' ;;
	esac
}
is() { test "$(node "$1" "$2")" = "$3"; }
lends() { is "$1" lent "$2" && is "$1" mem "$3"; }
wait_for 30 lends 127.0.0.2 4 1000 && wait_for 10 lends 127.0.0.3 4 8000 &&
    wait_for 10 lends 127.0.0.4 2 8000
ok $? "the nodes lend 4 processors and 1000 MiB, 4 and 8000, 2 and 8000 ($(node 127.0.0.2 mem) $(node 127.0.0.3 mem) $(node 127.0.0.4 mem))"

# 2. Bad requests.
bad() {	# bad OPTION VALUE TEXT
	"$BIN/CilkRun" "$1" "$2" -- true >"$T/bad.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/bad.out")" -eq 1 ] &&
	    grep -q -- "$3" "$T/bad.out"
	ok $? "$1 $2: exit 2, one line ($rc: $(cat "$T/bad.out"))"
}
bad --cpus 0 "--cpus 0: processors are too small"
bad --cpus 257 "--cpus 257: processors are too large"
bad --mem 4X "--mem 4X: unknown unit"
bad --mem 0 "--mem 0: must be more than 0"
bad --mem 2000T "--mem 2000T: over 1 PiB"

# 3. Two tasks of 3 processors and 4 GiB: 127.0.0.3 only, one at a time.
# Looked at all the while it runs: the most running on each node, and
# what 127.0.0.3 lends while a task holds 3 of its processors.
MARK=cilknow-needs-$$
start big "$BIN/CilkRun" --tasks 2 --cpus 3 --mem 4G -- sh -c \
    "echo task \$CILKNOW_TASK cpus=\$CILKNOW_CPUS mem=\$CILKNOW_MEM_MB; sleep 4; : $MARK"
BIG=$LAST_PID
most=0 elsewhere=0 samples=0 held=0 mem=
while kill -0 "$BIG" 2>/dev/null && [ $samples -lt 600 ]; do
	if ! "$BIN/CilkNodes" >"$T/s.out" 2>"$T/s.err"; then
		echo "# CilkNodes: $(cat "$T/s.err")"; continue
	fi
	# HOST's workers running, from SLOTS (running/lent/total)
	r() { awk -v h="$1" '$2 == h { split($4, a, "/"); print a[1] }' "$T/s.out"; }
	r2=$(r 127.0.0.2) r3=$(r 127.0.0.3) r4=$(r 127.0.0.4)
	[ "${r3:-0}" -gt "$most" ] && most=$r3
	[ "${r2:-0}" -gt 0 ] || [ "${r4:-0}" -gt 0 ] && elsewhere=$((elsewhere + 1))
	if [ "${r3:-0}" -eq 3 ]; then
		held=$((held + 1))
		[ -n "$mem" ] || mem=$(node 127.0.0.3 mem)
	fi
	samples=$((samples + 1))
	sleep 0.05
done
[ "$held" -gt 0 ]
ok $? "a task ran on 127.0.0.3 holding 3 of its processors ($held of $samples looks)"
[ "$mem" = 3904 ]
ok $? "127.0.0.3 lent 8000 - 4096 = 3904 MiB meanwhile (${mem:-nothing})"
wait "$BIG"
exit_is $? 0 "CilkRun --tasks 2 --cpus 3 --mem 4G ends, all done"
[ "$most" -eq 3 ] && [ "$elsewhere" -eq 0 ]
ok $? "over $samples looks: at most 3 running on 127.0.0.3 ($most), none elsewhere ($elsewhere)"
[ "$(grep -Ec '^\[127\.0\.0\.3(/[0-9]+)?\] task [01] cpus=3 mem=4096$' "$T/big.out")" -eq 2 ]
ok $? "both tasks ran on 127.0.0.3 and saw CILKNOW_CPUS=3, CILKNOW_MEM_MB=4096"
sed 's/^/#   | /' "$T/big.out" | head -8
wait_for 10 lends 127.0.0.3 4 8000 && wait_for 10 is 127.0.0.3 running 0
ok $? "after it, 127.0.0.3 lends its 4 processors and 8000 MiB again, none held"

# 4. Fits nowhere: waits, never runs, and CilkPs says why.
start five "$BIN/CilkRun" -t 8 --cpus 5 -- sh -c "echo ran; : $MARK-five"
FIVE=$LAST_PID
nofit() { "$BIN/CilkPs" | grep -Eq " 0 +- +1 +[0-9]+s +no-fit +sh -c echo ran; : $MARK-five\$"; }
wait_for 8 nofit
ok $? "CilkPs: the job has no processor, REASON no-fit"
"$BIN/CilkPs" --json | grep -q '"cpus": 5, "mem_mb": 0, "reason": "no-fit"'
ok $? "CilkPs --json: cpus 5, mem_mb 0, reason no-fit"
wait "$FIVE"
rc=$?
[ "$rc" -eq 124 ] && ! grep -q '^\[.*\] ran' "$T/five.out"
ok $? "--cpus 5 on nodes of 4: runs nowhere, time limit (exit $rc)"
"$BIN/CilkRun" -t 4 --mem 9000 -- sh -c "echo ran; : $MARK" >"$T/mem.out" 2>&1
rc=$?
[ "$rc" -eq 124 ] && ! grep -q '^\[.*\] ran' "$T/mem.out"
ok $? "--mem 9000 where nodes lend 8000: runs nowhere (exit $rc)"

# 5. A full cluster makes room.
start plain "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-plain"
PLAIN=$LAST_PID
total() { [ $(( $(node 127.0.0.2 running) + $(node 127.0.0.3 running) + $(node 127.0.0.4 running) )) -eq "$1" ]; }
wait_for 30 total 10
ok $? "a plain job runs on all 10 lent processors"
start room "$BIN/CilkRun" --cpus 3 --mem 4G -- sh -c \
    "echo roomy cpus=\$CILKNOW_CPUS; sleep 2; : $MARK"
ROOM=$LAST_PID
wait_for 30 grep -q '^\[127\.0\.0\.3\(/[0-9]*\)\?\] roomy cpus=3$' "$T/room.out"
ok $? "the 3-processor job runs on 127.0.0.3, room made for it"
grep -q 'making room for job [0-9]*, which takes 3 processors' \
    "$D/nodes/127.0.0.3/log"
ok $? "127.0.0.3 logs why it stops the plain job's workers"
wait "$ROOM"
exit_is $? 0 "the 3-processor job ends, done"
wait_for 30 total 10
ok $? "the plain job has all 10 processors again"
kill -0 "$PLAIN" 2>/dev/null
ok $? "and it never stopped"
kill -INT "$PLAIN" 2>/dev/null
wait "$PLAIN" 2>/dev/null

# 6. A node that stops is named, at warning priority, when the broker
# forgets it (three register intervals later).
NPID=$(awk '$1 == "node" && $3 ~ /^127\.0\.0\.4:/ { print $2 }' "$D/pids")
[ -n "$NPID" ] && kill -TERM "$NPID"
ok $? "node manager 127.0.0.4 (pid ${NPID:-none}) stopped"
wait_for 30 grep -Eq "node [0-9]+ \(127\.0\.0\.4 at 127\.0\.0\.4:[0-9]+\) silent for [0-9]+ s: forgotten, its work goes elsewhere" "$D/broker.log"
ok $? "the broker's log names the node it forgets"
finish
