#!/bin/bash
# A node down by itself stays down, with its reason, when both the
# broker and its node manager restart (issue 28): the broker keeps its
# drained and down nodes in registry.db beside its nodes and jobs
# (CilkJobBroker(8), FILES), and the restarted node manager, which has
# forgotten that it was down, is held all the same.  On a CilkLocal
# cluster of three nodes whose 127.0.0.3 has its state_dir on a full
# 64 KiB tmpfs (as 1100):
#  1. 127.0.0.3 goes down ("no space left"); 127.0.0.2 is drained;
#  2. the broker and 127.0.0.3's node manager stop (SIGTERM), the
#     tmpfs goes (room again), both start again;
#  3. CilkNodes, -R and the broker's log list 127.0.0.3 down with the
#     same reason and 127.0.0.2 drained, by the same administrator;
#  4. a job runs on the one node left only;
#  5. CilkNodes resume 127.0.0.3: it takes work again;
#  6. a registry.db of schema 1 (no holds) is brought to schema 2.
# ports: 20700-20704
. "$(dirname "$0")/lib.sh"
root_or_skip
D=$T/cluster
BAD=127.0.0.3
DRAINED=127.0.0.2
GOOD=127.0.0.4
export CILKNOW_SBIN=$SBIN
PORT=20700
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
MNT=$D/nodes/$BAD/state
trap 'umount -l "$MNT" 2>/dev/null; "$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; umount -l "$MNT" 2>/dev/null; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
N=$BIN/CilkNodes
nodes_are() { test "$("$N" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
state_of() { "$N" -n | awk -v h="$1" '$2 == h { print $3 }'; }
state_is() { test "$(state_of "$1")" = "$2"; }
is_down() { state_is "$BAD" down; }
pid_of() { awk -v r="$1" -v a="$2" '$1 == r && index($3, a) == 1 { print $2 }' "$D/pids"; }
gone() { ! kill -0 "$1" 2>/dev/null; }
show() { sed 's/^/#   | /' "$@"; }
wait_for 15 nodes_are idle 3
ok $? "3 idle nodes"
grep -q "^$GOOD\$" <("$N" -n | awk '{ print $2 }')
ok $? "the third node is $GOOD"

cp -a "$MNT" "$T/state.saved" &&
    mount -t tmpfs -o size=64k,mode=0755 cilknow-test "$MNT" &&
    cp -a "$T/state.saved/." "$MNT/" &&
    { dd if=/dev/zero of="$MNT/fill" bs=4k count=64 >/dev/null 2>&1; :; } &&
    [ "$(df -P "$MNT" | awk 'NR == 2 { print $4 }')" -eq 0 ]
ok $? "node $BAD's state_dir is a full 64 KiB tmpfs"
cd "$T" || exit 1
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE"
sleep 0.5
exit 0
EOS
chmod 755 "$T/task.sh"

# 1. Down by itself, and a drain.
k=0
while [ $k -lt 3 ] && ! is_down; do
	k=$((k + 1))
	"$BIN/CilkRun" -t 90 --tasks 3 -- sh "$T/task.sh" \
	    >"$T/j$k.out" 2>"$T/j$k.err"
	exit_is $? 0 "job $k ends 0"
	wait_for 3 is_down
done
wait_for 5 is_down
ok $? "$BAD is down after $k jobs"
"$N" drain $DRAINED --reason "fan noise" >"$T/drain.out" 2>&1
exit_is $? 0 "CilkNodes drain $DRAINED --reason 'fan noise'"
"$N" -R >"$T/R1.out"
REASON=$(awk -v h="$BAD" '$2 == h && $3 == "down" {
    sub(/^ *[0-9]+ +[^ ]+ +down +- +[^ ]+ /, ""); print }' "$T/R1.out")
case $REASON in
"no space left in "*"(3 starts in a row)") ok 0 "its reason: $REASON" ;;
*) ok 1 "its reason: $REASON"; show "$T/R1.out" ;;
esac
SINCE=$(awk -v h="$BAD" '$2 == h && $3 == "down" { print $5 }' "$T/R1.out")

# 2. Both restart: the broker (it writes its registry as it stops) and
# the down node's node manager, which no longer says it is down.
BROKER=$(pid_of broker 127.0.0.1)
NM=$(pid_of node "$BAD:")
[ -n "$BROKER" ] && [ -n "$NM" ]
ok $? "the broker ($BROKER) and $BAD's node manager ($NM)"
kill -TERM "$BROKER" "$NM"
wait_for 15 gone "$BROKER" && wait_for 15 gone "$NM"
ok $? "both stopped"
umount -l "$MNT"
ok $? "$BAD's state_dir has room again"
t0=$(date +%s.%N)
"$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" -o run_dir="$D/broker" \
    >>"$T/broker2.log" 2>&1 &
BROKER2=$!
PIDS="$PIDS $!"
"$SBIN/CilkNodeManager" -f -c "$D/cilknow.conf" \
    -o listen=$BAD:$((PORT + 1)) -o state_dir="$MNT" \
    -o run_dir="$D/nodes/$BAD/run" \
    -o sensors=file:"$D/nodes/$BAD/sensors" >>"$T/node2.log" 2>&1 &
PIDS="$PIDS $!"
back() { nodes_are idle 1 && state_is $DRAINED drained && is_down; }
wait_for 15 back
ok $? "restarted, the broker lists $BAD down, $DRAINED drained, $GOOD idle" ||
    "$N" -n | show
wait_for 15 grep -q "registered with the broker" "$T/node2.log"
ok $? "the new node manager registered" || tail -5 "$T/node2.log" | show
echo "# listed again $(awk -v a="$t0" -v b="$(date +%s.%N)" \
    'BEGIN { printf "%.1f", b - a }') s after the restarts"
sleep 3	# a few registrations of the new node manager (interval 1 s)
is_down
ok $? "$BAD is still down after its new node manager's registrations"
! grep -q "this node is down" "$T/node2.log"
ok $? "though the new node manager does not say it is down"
contains "$T/broker2.log" "1 drained or down nodes reloaded|2 drained or down nodes reloaded" \
    "the broker says it reloaded the held nodes"

# 3. The same reason, since the same time, and the drain by whom.
"$N" -R >"$T/R2.out"
[ "$(awk -v h="$BAD" '$2 == h && $3 == "down" {
    sub(/^ *[0-9]+ +[^ ]+ +down +- +[^ ]+ /, ""); print }' "$T/R2.out")" = "$REASON" ] &&
    [ "$(awk -v h="$BAD" '$2 == h && $3 == "down" { print $5 }' "$T/R2.out")" = "$SINCE" ]
ok $? "CilkNodes -R: $BAD down, the same reason, since the same time" ||
    show "$T/R1.out" "$T/R2.out"
grep -Eq "^ *[0-9]+ +$DRAINED +drained +[a-z_][a-z0-9_-]* +[^ ]+ fan noise\$" "$T/R2.out"
ok $? "and $DRAINED drained, by whom, why" || show "$T/R2.out"
"$N" --json >"$T/json.out"
grep -q "\"reason\": *\"no space left in $MNT" "$T/json.out"
ok $? "CilkNodes --json: the reason"

# 4. A job runs on the one node left.
"$BIN/CilkRun" -t 90 --tasks 4 -- sh "$T/task.sh" >"$T/r.out" 2>"$T/r.err"
exit_is $? 0 "a job ends 0"
[ "$(grep -c "^\[[0-9.]*\] task [0-3] attempt 1 on " "$T/r.out")" -eq 4 ] &&
    ! grep -q " on \($BAD\|$DRAINED\)\$" "$T/r.out"
ok $? "each task ran once, none on $BAD or $DRAINED" || show "$T/r.out"

# 5. Resumed.
"$N" resume $BAD >"$T/resume.out" 2>&1
exit_is $? 0 "CilkNodes resume $BAD"
wait_for 5 state_is $BAD idle
ok $? "$BAD is idle again"
"$N" resume $DRAINED >/dev/null 2>&1
wait_for 5 nodes_are idle 3
ok $? "three idle nodes"
# 6. A registry.db of schema 1 (an older broker's: nodes and jobs, no
# holds) is brought to schema 2, its nodes kept.
DB=$D/state/broker/registry.db
kill -TERM "$BROKER2" && wait_for 15 gone "$BROKER2"
ok $? "the broker stopped"
python3 - "$DB" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DROP TABLE holds")
db.execute("PRAGMA user_version = 1")
db.commit()
PY
ok $? "its registry.db made schema 1 (no holds table)"
schema() {
	python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("PRAGMA user_version").fetchone()[0],
      db.execute("SELECT count(*) FROM sqlite_master WHERE name = ?",
                 ("holds",)).fetchone()[0])' "$DB"
}
"$SBIN/CilkJobBroker" -n -c "$D/cilknow.conf" >"$T/check.out" 2>&1
exit_is $? 0 "CilkJobBroker -n with it"
v=$(schema)
[ "$v" = "1 0" ]
ok $? "-n writes nothing: still schema 1 ($v)"
"$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" -o run_dir="$D/broker" \
    >>"$T/broker3.log" 2>&1 &
PIDS="$PIDS $!"
wait_for 15 grep -q "listening on" "$T/broker3.log"
ok $? "a broker starts on it"
contains "$T/broker3.log" "registry.db: 3 nodes and 0 jobs reloaded \(0 refused\)" \
    "its 3 nodes reloaded"
v=$(schema)
[ "$v" = "2 1" ]
ok $? "registry.db is schema 2 again, with its holds table ($v)"
if [ "$TAP_FAILED" -ne 0 ]; then
	grep -i "down\|reload\|drain" "$T/broker2.log" | tail -8 | show
	tail -8 "$T/node2.log" | show
fi
finish
