#!/bin/bash
# The broker gives no new work to a node it has not heard from for more
# than a register interval (and a quarter), though it still lists it
# until 3 intervals make it down (issue 28; CilkJobBroker(8)).  On a
# CilkLocal cluster of three nodes (register_interval = 4 s): node
# 127.0.0.3's node manager is frozen (SIGSTOP, parent and engine, by
# pid); once the broker has not heard from it for 5.5 s, a job's
# assignments (the broker's log) go to the other two nodes only, and
# every task runs there.  Thawed (SIGCONT), it registers and takes work
# again.
# ports: 20525-20529
. "$(dirname "$0")/lib.sh"
D=$T/cluster
Q=127.0.0.3
export CILKNOW_SBIN=$SBIN
PORT=20525
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=4 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
PIDS=
trap '[ -n "$PIDS" ] && kill -CONT $PIDS 2>/dev/null; "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
N=$BIN/CilkNodes
BLOG=$D/broker.log
nodes_are() { test "$("$N" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 20 nodes_are idle 3
ok $? "3 idle nodes"
seen_of() { "$N" -n | awk -v h="$1" '$2 == h { print $NF }'; }
seen_over() { awk -v s="$(seen_of "$1")" -v m="$2" 'BEGIN { exit !(s != "" && s + 0 >= m) }'; }
seen_under() { awk -v s="$(seen_of "$1")" -v m="$2" 'BEGIN { exit !(s != "" && s + 0 < m) }'; }
cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
sleep 0.3
exit 0
EOS
chmod 755 "$T/task.sh"

# Its node manager, parent and engine, frozen.
NM=$(awk -v a="$Q" '$1 == "node" && index($3, a) == 1 { print $2 }' "$D/pids")
PIDS="$NM $(ps -o pid= --ppid "$NM" | tr '\n' ' ')"
kill -STOP $PIDS
ok $? "node manager of $Q frozen (pids $PIDS)"
wait_for 15 seen_over $Q 5.5
ok $? "the broker has not heard from it for 5.5 s (SEEN $(seen_of $Q))"
before=$(wc -l <"$BLOG")
"$BIN/CilkRun" -t 60 --tasks 4 -- sh "$T/task.sh" >"$T/r.out" 2>"$T/r.err"
exit_is $? 0 "a job ends 0"
s=$(seen_of $Q)
tail -n +"$((before + 1))" "$BLOG" | grep "assign: job " >"$T/assign.out"
grep -q "to node [0-9]* (127.0.0.[24])" "$T/assign.out"
ok $? "its assignments go to the other nodes"
! grep -q "to node [0-9]* ($Q)" "$T/assign.out"
ok $? "none to $Q"
[ "$(grep -c "^\[[0-9.]*\] task [0-3] attempt 1 on " "$T/r.out")" -eq 4 ] &&
    ! grep -q " on $Q\$" "$T/r.out"
ok $? "every task ran once, none on $Q"
echo "# $Q silent for $s s when the job ended"
if awk -v s="$s" 'BEGIN { exit !(s + 0 < 11) }'; then
	"$N" -n | awk -v h=$Q '$2 == h && $3 != "down" { f = 1 } END { exit !f }'
	ok $? "still listed, not down, before 3 intervals"
else
	ok 0 "# SKIP the job took too long to see it listed before 3 intervals"
fi

# Thawed: it registers, and takes work.
kill -CONT $PIDS
ok $? "thawed"
PIDS=
wait_for 20 nodes_are idle 3
ok $? "3 idle nodes again"
# Listed idle is not heard from: until its first registration after the
# thaw, the broker still passes it over (a CI run's job ended first).
wait_for 20 seen_under $Q 2
ok $? "the broker heard from it again (SEEN $(seen_of $Q))"
before=$(wc -l <"$BLOG")
"$BIN/CilkRun" -t 60 --tasks 9 -- sh "$T/task.sh" >"$T/r2.out" 2>"$T/r2.err"
exit_is $? 0 "a job ends 0"
tail -n +"$((before + 1))" "$BLOG" | grep -q "assign: job .* to node [0-9]* ($Q)"
ok $? "$Q is assigned work again"
if [ "$TAP_FAILED" -ne 0 ]; then
	sed 's/^/# assign: /' "$T/assign.out"
	"$N" -n | sed 's/^/# nodes: /'
fi
finish
