#!/bin/bash
# CilkKill on a 2-node CilkLocal cluster.  A user ends their own job: it
# leaves CilkPs, every worker process on the nodes is gone (by pid) and
# the job manager (CilkRun) exits 143 saying who ended the job.  Another
# user's request is refused (exit 1, logged, the job runs on), so are a
# request signed by a key that only claims to be the user's (no answer:
# exit 3) and a captured -u request replayed later (needs root to
# capture); an administrator (admins) ends anybody's job; -u ends every
# job of a user; an unknown job is exit 1, no broker exit 3, bad usage 2;
# a parallel program's root on the user's terminal is ended too.
# leaks: every program (its queries are what it tests)
# ports: 18400-18419
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=18400
NOBROKER=127.0.0.1:18419
# The cluster's maker runs the jobs; carol alone administers it.
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o admins=carol >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
ME=$(id -un)
K=$BIN/CilkKill
for u in bob carol; do
	"$BIN/CilkKey" generate-user -u $u "$T/$u.id" >/dev/null &&
	    "$BIN/CilkKey" public "$T/$u.id" >"$D/users/$u.pub" &&
	    chmod 644 "$D/users/$u.pub"
done
# A key that claims to be $ME's, but whose public half is not installed.
"$BIN/CilkKey" generate-user -u "$ME" "$T/forged.id" >/dev/null
ok $? "keys for bob, carol and a forger"
reload_local "$D"	# users' keys count from a reload on
ok $? "the daemons reload and know bob's and carol's keys"
BLOG=$D/broker.log

nodes_are() {	# nodes_are STATE N
	test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"
}
MARK=cilknow-kill-$$
workers() { shells "^sh -c .*$MARK-$1\$" | sort; }
ended() { ! kill -0 "$1" 2>/dev/null; }
all_gone() {	# all_gone PID... : none of them is alive
	for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done
	return 0
}
all_alive() {
	for p in "$@"; do kill -0 "$p" 2>/dev/null || return 1; done
	return 0
}
job_of() {	# job_of NAME : the job number CilkPs shows for it
	"$BIN/CilkPs" | awk -v m="$MARK-$1" 'index($0, m) { print $1 }'
}
listed() { test -n "$(job_of "$1")"; }
workers_are() {	# workers_are NAME N : N workers of it exist
	test "$(workers "$1" | wc -l)" -eq "$2"
}
# run NAME N : a long job of $ME's, in the background, on N nodes.
run() {
	start "run-$1" "$BIN/CilkRun" -- sh -c "sleep 600; : $MARK-$1"
	eval "RUN_$1=$LAST_PID"
	wait_for 20 workers_are "$1" "$2" && wait_for 10 listed "$1"
}
# drops KIND : what the broker dropped as KIND, by its ping counters
drops() {
	"$BIN/CilkPing" -n 1 127.0.0.1:$PORT 2>&1 |
	    sed -nE "s/.*peer counters:.* $1 ([0-9]+).*/\1/p" | grep . ||
	    echo 0
}
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

# Usage, and no broker.
"$K" >/dev/null 2>&1
exit_is $? 2 "CilkKill without a job is a usage error"
"$K" -u bob 3 >/dev/null 2>&1
exit_is $? 2 "-u with job numbers too is a usage error"
"$K" 0 >"$T/zero.err" 2>&1
exit_is $? 2 "job 0 is a usage error"
"$K" -u 'Bob!' >/dev/null 2>&1
exit_is $? 2 "an invalid user name is a usage error"
"$K" -b $NOBROKER 7 >"$T/nobroker.out" 2>&1
exit_is $? 3 "no broker at $NOBROKER"
contains "$T/nobroker.out" "no answer from the broker at $NOBROKER" \
    "CilkKill says that no broker answered"
"$K" 999 >"$T/999.out" 2>&1
exit_is $? 1 "an unknown job"
contains "$T/999.out" "job 999: no such job" "is no such job"
"$K" --json 999 >"$T/999.json" 2>/dev/null
exit_is $? 1 "--json: an unknown job"
contains "$T/999.json" '^\{"schema": 1, "jobs": \[\{"job": 999, "user": null, "result": "no such job"\}\]\}$' \
    "--json says so in one document"

# 1. Job a; others may not end it.
run a 2
ok $? "job a runs on both nodes"
JA=$(job_of a)
WA=$(workers a)
"$K" -o user_key="$T/bob.id" "$JA" >"$T/bob.out" 2>&1
exit_is $? 1 "bob may not end $ME's job $JA"
contains "$T/bob.out" "job $JA is $ME's: only $ME or an administrator" \
    "saying why"
"$K" -o user_key="$T/bob.id" -u "$ME" >"$T/bobu.out" 2>&1
exit_is $? 1 "bob may not end every job of $ME's"
contains "$T/bobu.out" "refused: only $ME or an administrator may end" \
    "saying why"
before=$(drops unknown_key)
"$K" -o user_key="$T/forged.id" "$JA" >"$T/forged.out" 2>&1
exit_is $? 3 "a request signed by a forged key of $ME's gets no answer"
after=$(drops unknown_key)
[ "$after" -eq $((before + 3)) ]
ok $? "the broker dropped its 3 tries: no such key of $ME's ($before, then $after)"
listed a && all_alive $WA "$RUN_a"
ok $? "job $JA is still listed, its workers and job manager run"
contains "$BLOG" "kill from bob refused: job $JA: not yours" \
    "the broker logged bob's refusal"

# 2. Its user ends it.
"$K" "$JA" >"$T/kill-a.out" 2>&1
exit_is $? 0 "$ME ends job $JA"
contains "$T/kill-a.out" "^job $JA of $ME ended$" "CilkKill says so"
wait_for 10 ended "$RUN_a"
ok $? "the job manager exits"
status=999	# it did not end: stop waits for it at the end
ended "$RUN_a" && { wait "$RUN_a"; status=$?; }
exit_is $status 143 "CilkRun of job $JA"
contains "$T/run-a.out" "job $JA was ended by CilkKill \(user $ME\)" \
    "CilkRun says who ended the job"
wait_for 10 sh -c "! '$BIN/CilkPs' | grep -q '$MARK-a'"
ok $? "the job left CilkPs"
wait_for 15 all_gone $WA
ok $? "every worker process of it is gone ($(echo $WA))"
wait_for 10 nodes_are idle 2
ok $? "both nodes are idle again"
contains "$BLOG" "job $JA of $ME ended by CilkKill \(user $ME\)" \
    "the broker logged it"
"$K" "$JA" >"$T/again.out" 2>&1
exit_is $? 0 "asked again, it was ended already"

# 3. -u ends every job of the user; a captured request replayed later
# ends nothing.
run b 2
ok $? "job b runs"
run c 1
ok $? "job c runs"
# Fair share: one node each.
wait_for 20 workers_are b 1
ok $? "job b gives a node to job c"
JB=$(job_of b)
JC=$(job_of c)
WBC="$(workers b) $(workers c)"
GO=$T/go
CAPTURE=0
if [ "$(id -u)" -eq 0 ]; then
	UDP_REPLAY_HANDLER=40 start replay "$TOOLS/udp_replay" \
	    127.0.0.1:$PORT 3 60 "$GO"
	wait_for 5 grep -q capturing "$T/replay.out" && CAPTURE=1
fi
"$K" -u "$ME" >"$T/kill-u.out" 2>&1
exit_is $? 0 "CilkKill -u $ME"
contains "$T/kill-u.out" "^job $JB of $ME ended$" "ends job $JB"
contains "$T/kill-u.out" "^job $JC of $ME ended$" "and job $JC"
wait_for 10 ended "$RUN_b" && wait_for 10 ended "$RUN_c"
ok $? "both job managers exit"
wait_for 15 all_gone $WBC
ok $? "every worker process of both is gone"
wait_for 10 sh -c "! '$BIN/CilkPs' | grep -q '$MARK-[bc]'"
ok $? "both left CilkPs"
run d 2
ok $? "a new job d runs"
JD=$(job_of d)
WD=$(workers d)
if [ $CAPTURE -eq 1 ] && grep -q "captured" "$T/replay.out"; then
	before=$(drops replay)
	touch "$GO"
	wait_for 10 grep -q "replayed 3 times" "$T/replay.out"
	ok $? "the captured -u request is replayed 3 times"
	# The copies are in the broker's queue ahead of these requests.
	after=$(drops replay)
	[ "$after" -eq $((before + 3)) ]
	ok $? "the broker dropped them as replays ($before, then $after)"
	listed d && all_alive $WD "$RUN_d"
	ok $? "job $JD is still listed, its workers and job manager run"
else
	echo "ok $((TAP_N + 1)) # SKIP capturing needs root (AF_PACKET)"
	TAP_N=$((TAP_N + 1))
fi

# 4. An administrator ends anybody's job.
"$K" -o user_key="$T/carol.id" "$JD" >"$T/carol.out" 2>&1
exit_is $? 0 "carol, an administrator, ends $ME's job $JD"
wait_for 10 ended "$RUN_d"
ok $? "its job manager exits"
contains "$T/run-d.out" "job $JD was ended by CilkKill \(user carol\)" \
    "saying that carol ended it"
wait_for 15 all_gone $WD
ok $? "every worker process of it is gone"
wait_for 10 sh -c "test \$('$BIN/CilkPs' | wc -l) -eq 1"
ok $? "CilkPs lists no job"

# 5. A parallel program typed by its user (queens): CilkKill ends the
# root on the user's terminal too, as SIGTERM would, and its workers.
start q "$BIN/queens" -d 20000 12
Q=$LAST_PID
qjob() { "$BIN/CilkPs" | awk '/queens -NoChouse/ { print $1 }'; }
has_qjob() { test -n "$(qjob)"; }
wait_for 20 grep -q "joined from 127" "$T/q.out" && wait_for 10 has_qjob
ok $? "queens runs as a job with a worker"
QJ=$(qjob)
"$K" "$QJ" >"$T/kq.out" 2>&1
exit_is $? 0 "its user ends queens' job $QJ"
wait_for 15 ended "$Q"
ok $? "the root on the user's terminal ends too"
ended "$Q" && { wait "$Q"; status=$?; }
[ "${status:-0}" -eq 143 ]
ok $? "as by SIGTERM (exit ${status:-none}, want 143)"
contains "$T/q.out" "the job was ended by CilkKill" \
    "and its clearinghouse says why"
wait_for 10 sh -c "test \$('$BIN/CilkPs' | wc -l) -eq 1"
ok $? "CilkPs lists no job"

# Refusals are logged, but not without bound.
for i in $(seq 30); do
	"$K" -o user_key="$T/bob.id" 4242 >/dev/null 2>&1
done
# log_rate: 20 lines in each minute from the first; this test may last
# more than a minute on a loaded machine, and each minute may have 20.
lines=$(grep -c "kill from .* refused" "$BLOG")
most=$(grep "kill from .* refused" "$BLOG" | awk '{
	split(substr($1, 12, 12), t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]
	if (NR == 1) first = s; last = s
} END { print 20 * (1 + int((last - first) / 60)) }')
[ "$lines" -le "${most:-20}" ]
ok $? "30 more refusals, at most 20 lines a minute logged ($lines, at most ${most:-?})"
kill -0 "$(awk '$1 == "broker" { print $2 }' "$D/pids")"
ok $? "the broker still runs"
finish
