#!/bin/bash
# The accounting database and CilkHist on a 2-node CilkLocal cluster:
#  1. a CilkRun --tasks 3 job whose task 1 always fails: CilkHist shows
#     the job (failed, exit 1, 3 tasks, 1 failed), -j its task rows
#     (node, tries, exit status), --json the same;
#  2. bob sees none of it: not in his list, -j refused, -u refused; a
#     record he sends for the job is refused and changes nothing;
#  3. --after: held while the job it names runs, runs after it ended
#     successfully; refused (exit 1, one line) after a failed job and
#     for a job that does not exist;
#  4. the history survives a broker restart and a kill -9 of the broker
#     right after a job ended, and job ids go on from the last; a job
#     whose job manager died while the broker was down becomes lost;
#  5. a job whose broker is killed -9 while its tasks end: every task's
#     record reaches the restarted broker;
#  6. usage (2) and no broker (3).
# leaks: every program (its queries are what it tests)
# ports: 19500-19519
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19500
NOBROKER=127.0.0.1:19519
# Who runs the test administers the cluster; bob does not.
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o admins="$(id -un)" >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
ME=$(id -un)
H=$BIN/CilkHist
"$BIN/CilkKey" generate-user -u bob "$T/bob.id" >/dev/null &&
    "$BIN/CilkKey" public "$T/bob.id" >"$D/users/bob.pub" &&
    chmod 644 "$D/users/bob.pub"
ok $? "a key for bob"
reload_local "$D"
ok $? "the daemons reload and know bob's key"
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"
BROKER=$(awk '$1 == "broker" { print $2 }' "$D/pids")
# field JOB COLUMN : a column of the job's row in CilkHist
field() { "$H" | awk -v j="$1" -v c="$2" '$1 == j { print $c }'; }
# tfield JOB TASK COLUMN : a column of a task row of CilkHist -j JOB
tfield() {
	"$H" -j "$1" | awk -v t="$2" -v c="$3" \
	    'NF == 0 { tasks = 1; next } tasks && $1 == t { print $c }'
}
ended() { ! kill -0 "$1" 2>/dev/null; }

cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK"
[ "$CILKNOW_TASK" = 1 ] && exit 3
exit 0
EOS
chmod 755 "$T/task.sh"

# 1. Three tasks, task 1 given up after 2 failures.
"$BIN/CilkRun" -t 60 --tasks 3 --retries 2 -- sh "$T/task.sh" \
    >"$T/r1.out" 2>"$T/r1.err"
exit_is $? 1 "the job with a failing task ends 1"
J1=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/r1.err" | head -1)
test -n "$J1"
ok $? "its job number ($J1)"
"$H" >"$T/h1.out" 2>&1
exit_is $? 0 "CilkHist answers"
head -1 "$T/h1.out" | grep -q "^ *JOB USER *STATE *EXIT *SUBMIT *START *END *ELAPSED *TASKS *FAILED *COMMAND$"
ok $? "its columns"
awk -v j="$J1" -v u="$ME" '$1 == j && $2 == u && $3 == "failed" &&
    $4 == 1 && $9 == 3 && $10 == 1 && $11 == "sh" { f = 1 } END { exit !f }' \
    "$T/h1.out"
ok $? "the job's row: $ME, failed, exit 1, 3 tasks, 1 failed, its command"
"$H" -j "$J1" >"$T/h1j.out" 2>&1
exit_is $? 0 "CilkHist -j $J1"
grep -q "^ *TASK NODE *TRIES *STATE *EXIT *START *END *ELAPSED *CPU *MAXRSS$" \
    "$T/h1j.out"
ok $? "the task columns"
for t in 0 2; do
	[ "$(tfield "$J1" $t 4)" = completed ] &&
	    [ "$(tfield "$J1" $t 5)" = 0 ] && [ "$(tfield "$J1" $t 3)" = 1 ] &&
	    tfield "$J1" $t 2 | grep -Eq '^127\.0\.0\.[23]'
	ok $? "task $t: completed, exit 0, one try, on a node of the cluster"
done
[ "$(tfield "$J1" 1 4)" = failed ] && [ "$(tfield "$J1" 1 5)" = 3 ] &&
    [ "$(tfield "$J1" 1 3)" = 2 ]
ok $? "task 1: failed, exit 3, two tries"
NODE1=$(tfield "$J1" 1 2)
grep -q "task 1 on $NODE1 exited 3: given up" "$T/r1.err"
ok $? "task 1's node is the one its job manager named ($NODE1)"
"$H" -j "$J1" --json >"$T/h1.json" 2>&1
exit_is $? 0 "CilkHist -j --json"
python3 - "$T/h1.json" "$J1" "$ME" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][0]
t = {x["task"]: x for x in d["tasks"]}
assert d["schema"] == 1 and len(d["jobs"]) == 1
assert j["job"] == int(sys.argv[2]) and j["user"] == sys.argv[3]
assert j["state"] == "failed" and j["exit"] == 1
assert j["tasks"] == 3 and j["failed"] == 1
assert j["submit"] <= j["start"] <= j["end"]
assert sorted(t) == [0, 1, 2]
assert t[1]["exit"] == 3 and t[1]["tries"] == 2 and t[1]["state"] == "failed"
assert t[0]["exit"] == 0 and t[0]["node"].startswith("127.0.0.")
assert t[0]["start"] <= t[0]["end"]
# measured by the node (1025-hist-usage.sh checks the figures)
assert t[0]["cpu"] is not None and t[0]["cpu"] >= 0
assert t[0]["maxrss_kb"] is not None and t[0]["maxrss_kb"] > 0
EOP
ok $? "--json: the job and its three tasks"

# 2. Bob's history is his own.
"$H" -o user_key="$T/bob.id" >"$T/bob.out" 2>&1
exit_is $? 0 "bob's CilkHist answers"
! awk -v j="$J1" '$1 == j' "$T/bob.out" | grep -q .
ok $? "bob does not see $ME's job $J1"
"$H" -o user_key="$T/bob.id" -j "$J1" >"$T/bobj.out" 2>&1
exit_is $? 1 "bob's CilkHist -j $J1 ends 1"
! grep -q "^ *0 127" "$T/bobj.out"
ok $? "... and shows none of its tasks"
"$H" -o user_key="$T/bob.id" -u "$ME" >"$T/bobu.out" 2>&1
exit_is $? 1 "bob's CilkHist -u $ME ends 1"
contains "$T/bobu.out" "only an administrator" "... saying why"
"$TOOLS/acct_forge" -o user_key="$T/bob.id" "$J1" 0 0 >"$T/forge.out" 2>&1
exit_is $? 1 "bob's record for $ME's job $J1 is refused"
contains "$T/forge.out" "not your job" "... as not his job"
[ "$(tfield "$J1" 0 3)" = 1 ] && [ "$(tfield "$J1" 0 2)" != 127.0.0.99 ]
ok $? "$ME's task row is as it was"
"$TOOLS/acct_forge" 999999 0 0 >"$T/forge2.out" 2>&1
exit_is $? 1 "a record for a job that never registered is refused"
contains "$T/forge2.out" "no such job" "... as no such job"
"$H" -u bob >"$T/adm.out" 2>&1
exit_is $? 0 "an administrator ($ME, in admins) may ask for bob's jobs"

# 3. --after.
start runa "$BIN/CilkRun" -t 60 --tasks 1 -- sh -c \
    "while [ ! -e '$T/go' ]; do sleep 0.1; done"
RUNA=$LAST_PID
wait_for 20 grep -q "job [0-9]* registered" "$T/runa.out"
ok $? "a job to wait for runs"
JA=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/runa.out" | head -1)
start runb "$BIN/CilkRun" -t 60 --after "$JA" -- sh -c 'echo after-ran'
RUNB=$LAST_PID
wait_for 10 grep -q "held until job $JA" "$T/runb.out"
ok $? "CilkRun --after $JA is held"
# A negative: some of its polls of the broker go by while job $JA runs.
sleep 1
! grep -q "after-ran" "$T/runb.out" && ! ended "$RUNB" && ! ended "$RUNA"
ok $? "it does not run while job $JA runs"
touch "$T/go"
wait_for 30 ended "$RUNA" && wait_for 30 ended "$RUNB"
ok $? "both end"
wait "$RUNB"
exit_is $? 0 "the held job ran and ended 0"
grep -q "after-ran" "$T/runb.out"
ok $? "its program ran"
JB=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/runb.out" | head -1)
python3 - "$JA" "$JB" <<EOP
import json, subprocess, sys
d = json.loads(subprocess.check_output(["$H", "--json"]))
j = {x["job"]: x for x in d["jobs"]}
a, b = j[int(sys.argv[1])], j[int(sys.argv[2])]
assert a["state"] == "completed" and b["state"] == "completed"
assert b["start"] >= a["end"], (a, b)
EOP
ok $? "the history: job $JB started after job $JA ended"
"$BIN/CilkRun" -t 60 --after "$J1" -- sh -c 'echo must-not-run' \
    >"$T/af.out" 2>"$T/af.err"
exit_is $? 1 "--after a failed job ends 1"
[ "$(grep -c "after $J1" "$T/af.err")" -eq 1 ] &&
    grep -q "did not end successfully" "$T/af.err" &&
    ! grep -q must-not-run "$T/af.out"
ok $? "one line says so, and nothing ran"
"$BIN/CilkRun" -t 60 --after 999999 -- true >"$T/an.out" 2>"$T/an.err"
exit_is $? 1 "--after an unknown job ends 1"
contains "$T/an.err" "after 999999: no such job" "... saying so"
"$BIN/CilkRun" --after 0 -- true >/dev/null 2>&1
exit_is $? 2 "--after 0 is a usage error"

# 4. The history after a restart, and after kill -9 right after a job.
restart_broker() {
	kill -KILL "$BROKER"
	"$SBIN/CilkJobBroker" -f -c "$D/cilknow.conf" -o run_dir="$D/broker" \
	    >>"$T/broker2.log" 2>&1 &
	BROKER=$!
	PIDS="$PIDS $BROKER"
	wait_for 20 "$H"
}
"$BIN/CilkRun" -t 60 --tasks 2 -- true >"$T/r4.out" 2>&1
exit_is $? 0 "a job of 2 tasks ends 0"
J4=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/r4.out" | head -1)
restart_broker	# at once: kill -9 right after the job ended
ok $? "the broker, killed -9 at once, is back"
test -s "$D/state/broker/history.db"
ok $? "the database is in the broker's state folder"
[ "$(field "$J4" 3)" = completed ] && [ "$(field "$J4" 9)" = 2 ] &&
    [ "$(field "$J1" 3)" = failed ] && [ "$(field "$JB" 3)" = completed ]
ok $? "every finished job is there after kill -9"
[ "$(tfield "$J4" 0 4)" = completed ] && [ "$(tfield "$J4" 1 4)" = completed ]
ok $? "and the tasks of the last"
wait_for 15 nodes_are idle 2
"$BIN/CilkRun" -t 60 -- true >"$T/r5.out" 2>&1
exit_is $? 0 "a job after the restart"
J5=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/r5.out" | head -1)
[ "$J5" -gt "$J4" ] && [ "$(field "$J5" 3)" = completed ] &&
    [ "$(field "$J4" 3)" = completed ]
ok $? "its id ($J5) goes on from the last ($J4), a row of its own"

# 4b. A job whose job manager dies while the broker is down: once the
# restarted broker has heard every job manager alive, it is lost, and
# --after it refuses.
start run7 "$BIN/CilkRun" -t 120 -- sh -c 'sleep 600'
RUN7=$LAST_PID
wait_for 20 grep -q "job [0-9]* registered" "$T/run7.out"
ok $? "a long job runs"
J7=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/run7.out" | head -1)
kill -KILL "$BROKER" "$RUN7"
wait "$RUN7" 2>/dev/null
restart_broker
ok $? "the broker is back, the job's manager is not"
lost() { [ "$(field "$J7" 3)" = lost ]; }
wait_for 30 lost
ok $? "job $J7 is lost in the history"
"$BIN/CilkRun" -t 60 --after "$J7" -- true >/dev/null 2>"$T/al.err"
exit_is $? 1 "--after a lost job ends 1"
wait_for 15 nodes_are idle 2
ok $? "its workers are gone from the nodes"

# 5. The broker killed -9 while a job's tasks end.
start run6 "$BIN/CilkRun" -t 120 --tasks 12 -- sh -c 'sleep 0.3'
RUN6=$LAST_PID
wait_for 20 grep -q "task [0-9]* on .* exited 0" "$T/run6.out"
ok $? "a job of 12 tasks runs"
restart_broker
ok $? "the broker, killed -9 while the tasks end, is back"
wait_for 90 ended "$RUN6"
ok $? "the job ends"
wait "$RUN6"
exit_is $? 0 "... with 0"
J6=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/run6.out" | head -1)
"$H" -j "$J6" >"$T/h6.out" 2>&1
[ "$(awk 'NF == 0 { t = 1; next } t && $4 == "completed"' "$T/h6.out" |
    wc -l)" -eq 12 ] && [ "$(field "$J6" 3)" = completed ]
ok $? "all 12 task records and the job's reached the history"

# 6. Usage and no broker.
"$H" -j 0 >/dev/null 2>&1
exit_is $? 2 "CilkHist -j 0 is a usage error"
"$H" -S yesterday >/dev/null 2>&1
exit_is $? 2 "a bad -S is a usage error"
"$H" -S 1d >"$T/since.out" 2>&1
exit_is $? 0 "CilkHist -S 1d"
awk -v j="$J1" '$1 == j' "$T/since.out" | grep -q .
ok $? "... lists today's jobs"
"$H" -b "$NOBROKER" -o timeout=0.5 >"$T/nob.out" 2>&1
exit_is $? 3 "no broker: exit 3"
finish
