#!/bin/bash
# A node that cannot start a job's workers for a reason of its own (its
# state_dir full: a 64 KiB tmpfs, filled, under spool_min_free) on a
# CilkLocal cluster of three nodes (CilkNodeManager(8), "Node-side
# failures"):
#  1. the job (--tasks 6) ends 0 with every task done once, on the
#     healthy nodes;
#  2. CilkRun's standard error names the node and the reason, once;
#  3. the failure is counted neither as the program's (no "failure N of")
#     nor as a task's attempt (every task ran as attempt 1);
#  4. the node says it was its own fault;
#  5. with spool_min_free = 0 (not checked before), the launch pad's own
#     ENOSPC is the node's fault too: the same, with the launch pad's
#     reason.
# How long the job took is printed, not asserted.
# ports: 20480-20499
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
BAD=127.0.0.3
export CILKNOW_SBIN=$SBIN
PORT=20480
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
MNT=$D/nodes/$BAD/state
trap 'umount "$MNT" 2>/dev/null; "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; umount "$MNT" 2>/dev/null; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 3
ok $? "3 idle nodes"

# The bad node's state_dir becomes a tiny file system, its contents kept,
# then filled up.
cp -a "$MNT" "$T/state.saved" &&
    mount -t tmpfs -o size=64k,mode=0755 cilknow-test "$MNT" &&
    cp -a "$T/state.saved/." "$MNT/"
ok $? "node $BAD's state_dir is a 64 KiB tmpfs"
dd if=/dev/zero of="$MNT/fill" bs=4k count=64 >/dev/null 2>&1
[ "$(df -P "$MNT" | awk 'NR == 2 { print $4 }')" -eq 0 ]
ok $? "and it is full"

cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
sleep 0.5
exit 0
EOS
chmod 755 "$T/task.sh"

t0=$(date +%s.%N)
"$BIN/CilkRun" -t 90 --tasks 6 -- sh "$T/task.sh" >"$T/r1.out" 2>"$T/r1.err"
rc=$?
t1=$(date +%s.%N)
echo "# the job took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
exit_is $rc 0 "the job ends 0"
for i in 0 1 2 3 4 5; do
	[ "$(grep -c "^\[[0-9.]*\] task $i attempt 1 on " "$T/r1.out")" -eq 1 ]
	ok $? "task $i ran once, as attempt 1"
done
! grep -q " on $BAD\$" "$T/r1.out"
ok $? "none ran on $BAD"
contains "$T/r1.err" "ends: all tasks done \(6 done, 0 failed" \
    "the job ends: all tasks done, none failed"
contains "$T/r1.err" "node $BAD: no space left in $MNT \([0-9]+ KiB free, spool_min_free 1024 KiB\); task [0-5] (runs elsewhere|waits for another node)" \
    "CilkRun names the node and the reason"
[ "$(grep -c "node $BAD: no space left" "$T/r1.err")" -eq 1 ]
ok $? "once"
! grep -Eq "failure [0-9]+ of|given up after" "$T/r1.err"
ok $? "not counted as the program's failure"
contains "$D/nodes/$BAD/log" "not started \(this node's fault: it runs elsewhere\): no space left in $MNT" \
    "the node says it was its own fault"

# 5. Not checked before: the launch pad itself meets the full disk.
echo "spool_min_free = 0" >>"$D/cilknow.conf"
reload_local "$D"
ok $? "spool_min_free = 0, reloaded"
t0=$(date +%s.%N)
"$BIN/CilkRun" -t 90 --tasks 6 -- sh "$T/task.sh" >"$T/r2.out" 2>"$T/r2.err"
rc=$?
t1=$(date +%s.%N)
echo "# the job took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
exit_is $rc 0 "the job ends 0"
[ "$(grep -c "^\[[0-9.]*\] task [0-5] attempt 1 on " "$T/r2.out")" -eq 6 ] &&
    ! grep -q " on $BAD\$" "$T/r2.out"
ok $? "each task ran once, as attempt 1, none on $BAD"
contains "$T/r2.err" "node $BAD: CilkLaunchPad: $MNT/workers/j[0-9]+-[0-9a-f]+/spec: No space left on device; task [0-5] (runs elsewhere|waits for another node)" \
    "CilkRun names the node and the launch pad's reason"
[ "$(grep -c "node $BAD: " "$T/r2.err")" -eq 1 ]
ok $? "once"
! grep -Eq "failure [0-9]+ of|given up after" "$T/r2.err"
ok $? "not counted as the program's failure"
if [ "$TAP_FAILED" -ne 0 ]; then
	sed 's/^/# err2: /' "$T/r2.err" | tail -30
	sed 's/^/# err: /' "$T/r1.err" | tail -30
	grep -i "not started\|refus" "$D/nodes/$BAD/log" | tail -5 | sed 's/^/# log: /'
fi
finish
