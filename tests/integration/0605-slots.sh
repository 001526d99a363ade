#!/bin/bash
# Processors as the unit of allocation (DESIGN.md sections 5 and 7), on
# a CilkLocal cluster of 4 workstations of 4 processors each: one job
# gets 16 workers; three jobs settle at 5/5/6 +- 1; an owner load of 2
# on one node stops 2 of its workers; the owner's return stops the rest;
# CilkNodes and CilkNodes --json show the truth at each step; queens
# runs several workers a host and gets the right answer.
# cpu: queens on 16 workers of 4 nodes keeps both cores busy
# ports: 19620-19639
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
"$BIN/CilkLocal" start -n 4 -s 4 -d "$D" -p 19620 -o quantum=0.3 \
    -o register_interval=1 -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4 -s 4"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
# The default predicate (load .35 to become idle, .80 to stay): on 4
# processors the owner's load keeps ceil(L - A) of them (DESIGN §6).

json_is() {	# json_is FILE EXPR: EXPR (of d, the document) holds
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
idle_are() { test "$("$BIN/CilkNodes" -s idle | tail -n +2 | wc -l)" -eq "$1"; }
wait_for 30 idle_are 4
ok $? "4 idle nodes"
"$BIN/CilkNodes" >"$T/n0.out" 2>&1
[ "$(grep -Ec '^ +[0-9]+ +127\.0\.0\.[2-5] +idle +0/4/4 +- ' "$T/n0.out")" -eq 4 ]
ok $? "each node lends its 4 processors: SLOTS 0/4/4"
"$BIN/CilkNodes" --json >"$T/n0.json" 2>&1
json_is "$T/n0.json" 'd["schema"] == 2 and all(n["slots"] == {"running": 0, "lent": 4, "total": 4} and n["jobs"] == [] for n in d["nodes"]) and len(d["nodes"]) == 4'
ok $? "CilkNodes --json schema 2: slots 0/4/4 and no jobs on each"

# slots_of HOST: the SLOTS column of that node
slots_of() { "$BIN/CilkNodes" | awk -v h="$1" '$2 == h { print $4 }'; }
slots_are() { test "$(slots_of "$1")" = "$2"; }
# workers: the sum of running workers over CilkNodes --json
workers() {
	"$BIN/CilkNodes" --json | python3 -c 'import json,sys; print(sum(n["slots"]["running"] for n in json.load(sys.stdin)["nodes"]))'
}
workers_are() { test "$(workers)" -eq "$1"; }
counts() { "$BIN/CilkPs" | awk 'NR > 1 { printf "%s ", $4 }'; }
# within LO HI N: N jobs, every count in [LO, HI], and their sum is SUM
within() {
	c=$(counts)
	[ "$(echo "$c" | wc -w)" -eq "$3" ] || return 1
	sum=0
	for x in $c; do
		[ "$x" -ge "$1" ] && [ "$x" -le "$2" ] || return 1
		sum=$((sum + x))
	done
	[ "$sum" -eq "$4" ]
}
MARK=cilknow-slots-$$
RUNS=
run_job() {	# run_job NAME
	start "$1" "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-$1"
	RUNS="$RUNS $LAST_PID"
}

# 1. One job: every lent processor.
run_job a
wait_for 60 within 16 16 1 16
ok $? "one job gets 16 workers on 4 nodes ($(counts))"
wait_for 20 workers_are 16
ok $? "CilkNodes --json counts 16 running workers ($(workers))"
"$BIN/CilkNodes" >"$T/n1.out" 2>&1
[ "$(grep -Ec '^ +[0-9]+ +127\.0\.0\.[2-5] +running +4/4/4 +1 ' "$T/n1.out")" -eq 4 ]
ok $? "each node: running, SLOTS 4/4/4, JOB 1"
# A worker is running for its node once its launch pad has forked; its
# command (the pattern anchored, so CilkRun's own line is not counted)
# may still be exec'ing.
job_a_procs() { pgrep -fc -- "^sh -c sleep 600; : $MARK-a\$"; }
job_a_has() { [ "$(job_a_procs)" -eq "$1" ]; }
wait_for 30 job_a_has 16
ok $? "16 worker processes of the job run ($(job_a_procs))"
# A guest's worker by default: nice 19 (worker_nice), SCHED_IDLE (ps
# prints no nice level for that policy: the kernel's, from stat).
nice_of_a() {
	for p in $(pgrep -f -- "^sh -c sleep 600; : $MARK-a\$"); do
		echo "$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f17)" \
		    "$(ps -o cls= -p "$p")"
	done | sort -u | xargs
}
[ "$(nice_of_a)" = "19 IDL" ]
ok $? "they run at nice 19 under SCHED_IDLE ($(nice_of_a))"

# 2. Three jobs share the 16 processors: 5/5/6 +- 1.
run_job b
run_job c
wait_for 90 within 4 7 3 16
ok $? "three jobs settle at 5/5/6 +- 1 ($(counts))"
mixed() {
	"$BIN/CilkNodes" --json >"$T/n2.json" 2>&1 &&
	json_is "$T/n2.json" 'sum(n["slots"]["running"] for n in d["nodes"]) == 16 and any(len(n["jobs"]) > 1 for n in d["nodes"])'
}
wait_for 20 mixed
ok $? "CilkNodes --json: 16 workers, and a node runs workers of several jobs"
"$BIN/CilkNodes" >"$T/n2.out" 2>&1
contains "$T/n2.out" '^ +[0-9]+ +127\.0\.0\.[2-5] +running +4/4/4 +[1-3],[1-3]' \
    "CilkNodes lists the jobs of a node's workers: 1,2 ..."
sed 's/^/#   | /' "$T/n2.out"

# 3. The owner's load on 127.0.0.3 takes 2 of its processors back.
printf 'idletime=1000000\nload=2,2,2\n' >"$D/nodes/127.0.0.3/sensors"
wait_for 20 slots_are 127.0.0.3 2/2/4
ok $? "owner load 2 on 127.0.0.3, default predicate: 2 of its 4 processors lent, 2 running ($(slots_of 127.0.0.3))"
wait_for 20 workers_are 14
ok $? "its 2 other workers stopped: 14 in all ($(workers))"
grep -q "lending 2 of 4 processors (owner's load 2.00)" "$D/nodes/127.0.0.3/log"
ok $? "its node manager logs: lending 2 of 4 processors"
grep -q "the owner's load needs its processor" "$D/nodes/127.0.0.3/log"
ok $? "and why it stops them"
wait_for 60 within 3 6 3 14
ok $? "the three jobs share the 14: 5/5/4 +- 1 ($(counts))"

# 4. The owner is back: every processor of the node is taken back.
printf 'idletime=0\nload=2,2,2\n' >"$D/nodes/127.0.0.3/sensors"
wait_for 20 slots_are 127.0.0.3 0/0/4
ok $? "the owner returns: SLOTS 0/0/4 ($(slots_of 127.0.0.3))"
# SLOTS 0/0/4 may show while its stopped workers' ends are still being
# reported (state "stopping", their job still listed).
busy_line() {
	"$BIN/CilkNodes" >"$T/n4.out" 2>&1 &&
	grep -Eq '^ +[0-9]+ +127\.0\.0\.3 +busy +0/0/4 +- ' "$T/n4.out"
}
wait_for 20 busy_line
ok $? "CilkNodes: 127.0.0.3 busy, nothing lent, no job" ||
    sed 's/^/#   | /' "$T/n4.out"
wait_for 20 workers_are 12
ok $? "12 workers left on the other 3 nodes ($(workers))"

# 5. The owner leaves, the load is gone: all 4 lent again.
echo 'idletime=1000000' >"$D/nodes/127.0.0.3/sensors"
wait_for 30 workers_are 16
ok $? "the owner away again: 16 workers ($(workers))" || diag_cluster "$D"

for p in $RUNS; do kill -INT "$p" 2>/dev/null; done
for p in $RUNS; do wait "$p" 2>/dev/null; done
wait_for 30 idle_are 4
ok $? "the jobs end: 4 idle nodes"

# 6. A parallel program on the 16 processors: several workers a host,
# one clearinghouse's books, the right answer.
ended() { ! kill -0 "$1" 2>/dev/null; }
start q "$BIN/queens" -d 1000 12
Q=$LAST_PID
wait_for 120 ended "$Q"
ok $? "queens ends"
wait "$Q"
exit_is $? 0 "queens exits 0"
answer_is "$T/q.out" 14200 "queens 12 prints 14200 on 4 nodes of 4 processors"
joined=$(grep -c "joined from" "$T/q.out")
[ "$joined" -gt 5 ]
ok $? "more workers joined than there are nodes and the root ($joined)"
grep -Eo "on host [0-9]+" "$T/q.out" | sort | uniq -c | awk '$1 >= 2' | grep -q .
ok $? "several of them on one host"
grep -E "joined from|every unit is final" "$T/q.out" | sed 's/^/#   | /'
finish
