#!/bin/bash
# The broker remembers (CilkJobBroker(8), FILES): its registry of nodes
# and jobs is kept in state_dir/broker/registry.db and reloaded at
# start.  With a 15 s register interval nobody registers again for a
# while after a restart, so the first answers of a restarted broker come
# from what it reloaded: CilkPs lists the running job with its nodes,
# CilkNodes the nodes, CilkKill of the job works and its workers stop;
# a job that ends normally after a restart ends with exit 0 and its job
# manager is not told "no such job".
# ports: 20460-20479
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20460
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=15 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2, register_interval=15"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
DB=$D/state/broker/registry.db

nodes_are() {	# nodes_are STATE N
	test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"
}
pid_of() { awk -v r="$1" -v a="$2" '$1 == r && index($3, a) == 1 { print $2 }' "$D/pids"; }
MARK=cilknow-remembers-$$
workers() { shells "^sh -c .*$MARK-$1\$" | sort; }
workers_are() { test "$(workers "$1" | wc -l)" -eq "$2"; }
job_of() { "$BIN/CilkPs" | awk -v m="$MARK-$1" 'index($0, m) { print $1 }'; }
# saved MARK : the database holds the job and 2 running nodes (the
# broker writes it at most once a second: python polls it, once).
saved() {
	python3 - "$DB" "$MARK-$1" <<'PY'
import sqlite3, sys, time
end = time.time() + 20
while time.time() < end:
    try:
        db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
        j = db.execute("SELECT count(*) FROM jobs WHERE command LIKE ?",
                       ("%" + sys.argv[2] + "%",)).fetchone()[0]
        n = db.execute("SELECT count(*) FROM nodes WHERE state = 3").fetchone()[0]
        db.close()
        if j == 1 and n == 2:
            sys.exit(0)
    except sqlite3.Error:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
}
# restart_broker : SIGKILL the broker, start it again, and keep the
# first CilkPs and CilkNodes answers it gives (in ps.N, nodes.N).
R=0
BROKER=$(pid_of broker 127.0.0.1)
restart_broker() {
	R=$((R + 1))
	kill -KILL "$BROKER"
	wait "$BROKER" 2>/dev/null
	"$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" -o run_dir="$D/broker" \
	    >>"$T/broker$R.log" 2>&1 &
	BROKER=$!
	PIDS="$PIDS $BROKER"
	STARTED=$(date +%s)
	wait_for 10 sh -c "'$BIN/CilkPs' >'$T/ps.$R' 2>&1" &&
	    "$BIN/CilkNodes" >"$T/nodes.$R" 2>&1
	ANSWERED=$(date +%s)
}
# listed_with N MARK NODES : CilkPs answer N lists the job with NODES
listed_with() {
	awk -v m="$MARK-$2" -v k="$3" 'index($0, m) && $4 == k { f = 1 }
	    END { exit !f }' "$T/ps.$1"
}
show() { sed 's/^/#   | /' "$@"; }

wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

# 1. A running job, the broker killed and restarted: answered at once.
start run-a "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-a"
RUNA=$LAST_PID
wait_for 20 workers_are a 2
ok $? "job a runs a worker on each node"
JOBA=$(job_of a)
before=$(workers a)
saved a
ok $? "the registry database holds job a and its 2 running nodes"
restart_broker
listed_with 1 a 2
ok $? "the restarted broker's first CilkPs lists job $JOBA with its 2 nodes" ||
    show "$T/ps.1"
test "$(grep -c '^ *[0-9]* .*running' "$T/nodes.1")" -eq 2
ok $? "and its first CilkNodes the 2 nodes, running" || show "$T/nodes.1"
[ $((ANSWERED - STARTED)) -lt 10 ]
ok $? "both within $((ANSWERED - STARTED)) s of the start (interval 15 s)"
grep -q "1 jobs reloaded\|2 nodes and 1 jobs reloaded" "$T/broker1.log"
ok $? "the broker says what it reloaded" || show "$T/broker1.log"
[ "$(workers a)" = "$before" ]
ok $? "the restart stopped no worker"
"$BIN/CilkKill" "$JOBA" >"$T/kill.out" 2>&1
exit_is $? 0 "CilkKill $JOBA right after the restart" || show "$T/kill.out"
wait_for 15 workers_are a 0
ok $? "both workers of the killed job stop"
wait_for 10 sh -c "! kill -0 $RUNA"
ok $? "its CilkRun exits"
! grep -qi "no such job" "$T/kill.out" "$T/run-a.out"
ok $? "nobody was told \"no such job\""

# 2. A job that ends on its own after a restart.
start run-b "$BIN/CilkRun" -- sh -c \
    "while [ ! -e '$T/go-b' ]; do sleep 0.2; done; : $MARK-b"
RUNB=$LAST_PID
wait_for 20 workers_are b 2
ok $? "job b runs a worker on each node"
JOBB=$(job_of b)
[ -n "$JOBB" ] && [ "$JOBB" -gt "$JOBA" ]
ok $? "job b has a new id ($JOBB > $JOBA)"
saved b
ok $? "the registry database holds job b and its 2 running nodes"
restart_broker
listed_with 2 b 2
ok $? "the restarted broker's first CilkPs lists job $JOBB with its 2 nodes" ||
    show "$T/ps.2"
touch "$T/go-b"
wait_for 30 sh -c "! kill -0 $RUNB"
ok $? "job b ends"
wait "$RUNB"
exit_is $? 0 "its CilkRun exits 0"
! grep -qi "no such job" "$T/run-b.out"
ok $? "its job manager was not told \"no such job\"" || show "$T/run-b.out"
wait_for 10 sh -c "! '$BIN/CilkPs' | grep -q '$MARK-b'"
ok $? "job b is gone from CilkPs"
finish
