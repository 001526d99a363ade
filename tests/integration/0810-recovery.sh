#!/bin/bash
# Recovery of a job whose root's workstation crashed, from the
# clearinghouse's checkpoint (CILKNOW_CHECKPOINT, -Recover=FILE), on a
# 4-node CilkLocal cluster: the root, its clearinghouse and its job
# manager are SIGKILLed together in the middle; the job run again with
# -Recover keeps what had counted and still gives the right answer,
# sums and records alike, recovered by hand (0820 has the node manager
# restart it by itself, CILKNOW_HOME).
# cpu: parallel programs re-run after their workers are killed
# ports: 17720-17739
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17720
"$BIN/CilkLocal" start -n 4 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=3 -o timeout=2 $BUSY_MACHINE_WORKERS >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1

nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
ended() { ! kill -0 "$1" 2>/dev/null; }
has_sum() { grep -Eq "sum [1-9][0-9]* so far" "$1"; }
# crash PID : the root, its clearinghouse and its job manager die at once
crash() {
	local ch jm
	ch=$(pgrep -P "$1" -f CilkChouse)
	jm=$([ -n "$ch" ] && pgrep -P "$ch" -f CilkJobManager)
	kill -KILL "$1" $ch $jm 2>/dev/null
	wait "$1" 2>/dev/null
	[ -n "$ch" ] && [ -n "$jm" ]
}
# ckpt_counts FILE : the checkpoint's sum (bytes 8-15) is not 0
ckpt_counts() {
	[ -s "$1" ] && [ "$(od -An -tx1 -j8 -N8 "$1" | tr -d ' \n')" != 0000000000000000 ]
}
# ckpt_rows FILE : the checkpoint holds records (some rows)
ckpt_rows() { [ -s "$1" ] && [ "$(stat -c %s "$1")" -gt 4000 ]; }
wait_for 15 nodes_are idle 4
ok $? "4 idle nodes"

# 1. queens: a sum.
CILKNOW_HOME=none CILKNOW_CHECKPOINT=$T/q.ckpt "$BIN/queens" -d 1000 12 >"$T/q1.out" 2>&1 &
Q=$!
PIDS="$PIDS $Q"
wait_for 30 ckpt_counts "$T/q.ckpt"
ok $? "the clearinghouse checkpoints work that counted"
crash $Q
ok $? "the root, its clearinghouse and its job manager are killed"
grep -Eq '^[0-9]+$' "$T/q1.out"
ok $((1 - $?)) "the crashed root printed no answer"
[ -s "$T/q.ckpt" ]
ok $? "the checkpoint survives"
CILKNOW_HOME=none timeout 120 "$BIN/queens" -Recover="$T/q.ckpt" -d 1000 12 >"$T/q2.out" 2>&1
exit_is $? 0 "queens -Recover exits 0"
has_sum "$T/q2.out"
ok $? "it resumed with work already counted"
answer_is "$T/q2.out" 14200 "and prints 14200"
[ ! -e "$T/q.ckpt" ]
ok $? "a finished job leaves no checkpoint"
wait_for 30 nodes_are idle 4
ok $? "the nodes are idle again"

# 2. mandelbrot: records, each once, across the crash.
"$BIN/mandelbrot" -Alone -s 400x300 -i 100000 -o "$T/alone.ppm" >/dev/null 2>&1
exit_is $? 0 "mandelbrot alone"
CILKNOW_HOME=none CILKNOW_CHECKPOINT=$T/m.ckpt "$BIN/mandelbrot" -s 400x300 -i 100000 \
    -o "$T/cluster.ppm" >"$T/m1.out" 2>&1 &
M=$!
PIDS="$PIDS $M"
wait_for 60 ckpt_rows "$T/m.ckpt"
ok $? "its checkpoint holds rows"
crash $M
ok $? "mandelbrot's root crashes"
if [ -e "$T/m.ckpt" ]; then
	CILKNOW_HOME=none timeout 120 "$BIN/mandelbrot" -Recover="$T/m.ckpt" -s 400x300 \
	    -i 100000 -o "$T/cluster.ppm" >"$T/m2.out" 2>&1
	exit_is $? 0 "mandelbrot -Recover exits 0"
	cmp -s "$T/alone.ppm" "$T/cluster.ppm"
	ok $? "the recovered image is the same, byte for byte"
	[ "$TAP_FAILED" -gt 0 ] && sed 's/^/#   m2 | /' "$T/m2.out" | tail -20
else
	ok 1 "mandelbrot had checkpointed before the crash"
fi
finish
