#!/bin/bash
# A node whose starts fail for a reason of its own node_fault_limit
# times in a row (default 3) goes down by itself (issue 28;
# CilkNodeManager(8), "Node-side failures"), on a CilkLocal cluster of
# three nodes whose 127.0.0.3 has its state_dir on a full 64 KiB tmpfs:
#  1. within 3 jobs (each gives it at least one start, which fails: "no
#     space left ...") the node says it is down and the broker lists it
#     as down with that reason in CilkNodes, -R and --json;
#  2. the next jobs run on the other two only, and the node is not even
#     tried (no "node 127.0.0.3:" line from CilkRun);
#  3. with room again and "CilkNodes resume 127.0.0.3" the node takes
#     work again: a job runs tasks there too.
# ports: 20520-20524
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
BAD=127.0.0.3
export CILKNOW_SBIN=$SBIN
PORT=20520
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
MNT=$D/nodes/$BAD/state
trap 'umount "$MNT" 2>/dev/null; "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; umount "$MNT" 2>/dev/null; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
N=$BIN/CilkNodes
nodes_are() { test "$("$N" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
state_of() { "$N" -n | awk -v h="$1" '$2 == h { print $3 }'; }
is_down() { test "$(state_of "$BAD")" = down; }
wait_for 15 nodes_are idle 3
ok $? "3 idle nodes"

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

# 1. Jobs until it is down: one start of each at least fails there.
k=0
while [ $k -lt 3 ] && ! is_down; do
	k=$((k + 1))
	"$BIN/CilkRun" -t 90 --tasks 3 -- sh "$T/task.sh" \
	    >"$T/j$k.out" 2>"$T/j$k.err"
	exit_is $? 0 "job $k ends 0"
	! grep -q " on $BAD\$" "$T/j$k.out"
	ok $? "job $k: no task ran on $BAD"
	wait_for 3 is_down
done
echo "# down after $k jobs"
wait_for 5 is_down
ok $? "the broker lists $BAD as down"
# (The reason is cut to 120 bytes, its count kept: the path is long.)
contains "$D/nodes/$BAD/log" "this node is down: no space left in $MNT .*\(3 starts in a row\); it takes no work" \
    "the node says it is down, why, after 3 starts in a row"
contains "$D/broker.log" "node [0-9]+ \($BAD\) is down: no space left in $MNT" \
    "the broker says so"
"$N" -R >"$T/R.out"
contains "$T/R.out" "^ *[0-9]+ +$BAD +down +- +[0-9T:-]+ no space left in $MNT .*\(3 starts in a row\)\$" \
    "CilkNodes -R: down, no user, since, the reason"
[ "$(grep -c " down " "$T/R.out")" -eq 1 ]
ok $? "the only node held"
"$N" --json >"$T/json.out"
grep -q "\"state\": *\"down\"" "$T/json.out" &&
    grep -q "\"reason\": *\"no space left in $MNT" "$T/json.out"
ok $? "CilkNodes --json: down, with the reason"
"$N" -s down >"$T/sdown.out"
[ "$(tail -n +2 "$T/sdown.out" | wc -l)" -eq 1 ] &&
    grep -q " $BAD " "$T/sdown.out"
ok $? "CilkNodes -s down lists it"

# 2. Down: the next job runs elsewhere, the node is not tried.
t0=$(date +%s.%N)
"$BIN/CilkRun" -t 90 --tasks 6 -- sh "$T/task.sh" >"$T/r.out" 2>"$T/r.err"
rc=$?
t1=$(date +%s.%N)
echo "# the job took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
exit_is $rc 0 "a job while it is down ends 0"
[ "$(grep -c "^\[[0-9.]*\] task [0-5] attempt 1 on " "$T/r.out")" -eq 6 ] &&
    ! grep -q " on $BAD\$" "$T/r.out"
ok $? "each task ran once, as attempt 1, none on $BAD"
! grep -q "node $BAD: " "$T/r.err"
ok $? "$BAD was not even tried"
is_down
ok $? "still down"

# 3. Room again (its own state_dir back: lazily, files may be open
# there), resumed: it takes work.
umount -l "$MNT"
ok $? "$BAD's state_dir has room again"
"$N" resume $BAD >"$T/resume.out" 2>&1
exit_is $? 0 "CilkNodes resume $BAD"
contains "$T/resume.out" "resumed: it takes work again" "says so"
wait_for 5 sh -c "test \"\$(\"$N\" -n | awk -v h=$BAD '\$2 == h { print \$3 }')\" = idle"
ok $? "listed as idle again"
"$N" -R >"$T/R2.out"
! grep -q " $BAD " "$T/R2.out"
ok $? "CilkNodes -R no longer lists it"
cat >"$T/slow.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
sleep 2
exit 0
EOS
chmod 755 "$T/slow.sh"
"$BIN/CilkRun" -t 90 --tasks 9 -- sh "$T/slow.sh" >"$T/back.out" \
    2>"$T/back.err"
exit_is $? 0 "a job after the resume ends 0"
grep -q " on $BAD\(/[0-9]*\)\?\$" "$T/back.out"
ok $? "tasks ran on $BAD again"
contains "$D/nodes/$BAD/log" "this node is up again" "the node says it is up"
if [ "$TAP_FAILED" -ne 0 ]; then
	cat "$T/R.out" "$T/R2.out" | sed 's/^/# R: /'
	"$N" -n | sed 's/^/# nodes: /'
	grep -i "down\|not started\|up again" "$D/nodes/$BAD/log" | tail -8 |
	    sed 's/^/# log: /'
	grep -i "down\|resume" "$D/broker.log" | tail -5 | sed 's/^/# broker: /'
	tail -5 "$T/back.out" | sed 's/^/# back: /'
fi
finish
