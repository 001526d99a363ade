#!/bin/bash
# Output people can rely on, on a CilkLocal cluster of 2 nodes with 2
# processors each (4 tasks at once):
#  1. 4 tasks x 20,000 lines arrive whole, once and in order per task:
#     0 damaged, 0 duplicated, 0 lost (counted), in the [node]-prefixed
#     stream, in --output files of their own (%t) and in one shared file;
#  2. --output/--error with %j, %t, %n and %% expanded, stdout and stderr
#     apart or (same pattern) together; a task that runs again leaves
#     only its finished attempt in its file; a bad pattern is exit 2, a folder
#     that is not there exit 1 before anything runs, and a file that
#     cannot be made while the job runs sends its lines to CilkRun
#     prefixed and makes the job fail (exit 1), saying so;
#  3. --detach prints the job id and returns 0; CilkPs -j shows the
#     tasks (done with EXIT 0:0, given up with 3:0, running), also as
#     JSON; the job finishes and its files are there; another user (bob)
#     is refused the table; an unknown job is exit 1; a broker that does
#     not answer is exit 3 with one line, never a detached job.
# ports: 19600-19619
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19600
NOBROKER=127.0.0.1:19619
"$BIN/CilkLocal" start -n 2 -s 2 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2 -s 2"
DETACHED=
trap '[ -n "$DETACHED" ] && "$BIN/CilkKill" "$DETACHED" >/dev/null 2>&1
"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
ME=$(id -un)
"$BIN/CilkKey" generate-user -u bob "$T/bob.id" >/dev/null &&
    "$BIN/CilkKey" public "$T/bob.id" >"$D/users/bob.pub" &&
    chmod 644 "$D/users/bob.pub"
ok $? "a key for bob"
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

# count FILE PREFIXED : "damaged duplicated lost disordered" of the
# lines t0:1 .. t3:20000 in FILE ([node] before each if PREFIXED is 1).
count() {
	awk -v pre="$2" '
	{
		line = $0
		if (pre == 1 && !sub(/^\[[0-9.]+(\/[0-9]+)?\] /, "", line)) {
			bad++; next
		}
		if (line !~ /^t[0-3]:[0-9]+$/) { bad++; next }
		split(line, f, ":"); t = substr(f[1], 2); n = f[2] + 0
		if (n < 1 || n > 20000) { bad++; next }
		if (seen[t, n]++) { dup++; next }
		if (n != last[t] + 1) order++
		last[t] = n; good++
	}
	END { printf "%d %d %d %d\n", bad, dup, 80000 - good, order }' "$1"
}
JOB='seq 1 20000 | sed "s/^/t$CILKNOW_TASK:/"'

# 1. Integrity.
"$BIN/CilkRun" --tasks 4 -- sh -c "$JOB" >"$T/p.out" 2>"$T/p.err"
exit_is $? 0 "4 tasks x 20000 lines, prefixed"
got=$(count "$T/p.out" 1)
[ "$got" = "0 0 0 0" ]
ok $? "prefixed: 0 damaged, 0 duplicated, 0 lost, 0 out of order (got $got)"
[ "$(grep -Eo '^\[[0-9.]+' "$T/p.out" | sort -u | wc -l)" -eq 2 ]
ok $? "the tasks ran on both nodes"
"$BIN/CilkRun" --tasks 4 --output 'f-%j-%t.txt' -- sh -c "$JOB" \
    >"$T/f.out" 2>"$T/f.err"
exit_is $? 0 "4 tasks x 20000 lines into --output f-%j-%t.txt"
FJ=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/f.err")
good=0
for t in 0 1 2 3; do
	seq 1 20000 | sed "s/^/t$t:/" | cmp -s - "f-$FJ-$t.txt" &&
	    good=$((good + 1))
done
[ "$good" -eq 4 ] && ! grep -q '^\[' "$T/f.out"
ok $? "each task's file holds exactly its 20000 lines in order, none on stdout"
"$BIN/CilkRun" --tasks 4 --output 'shared-%j.txt' -- sh -c "$JOB" \
    >"$T/s.out" 2>"$T/s.err"
exit_is $? 0 "4 tasks x 20000 lines into one shared --output file"
got=$(count shared-*.txt 0)
[ "$got" = "0 0 0 0" ]
ok $? "shared file: 0 damaged, 0 duplicated, 0 lost, 0 out of order (got $got)"

# 2. Patterns.
"$BIN/CilkRun" --tasks 2 --output 'n-%j-%t-%n.out' --error 'n-%j-%t.err' \
    -- sh -c 'echo "out $CILKNOW_TASK"; echo "err $CILKNOW_TASK" >&2' \
    >"$T/n.out" 2>"$T/n.err"
exit_is $? 0 "--output n-%j-%t-%n.out --error n-%j-%t.err"
NJ=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$T/n.err")
ok=0
for t in 0 1; do
	f=$(ls n-$NJ-$t-127.0.0.[23].out 2>/dev/null)
	[ -n "$f" ] && [ "$(cat "$f")" = "out $t" ] &&
	    [ "$(cat "n-$NJ-$t.err")" = "err $t" ] && ok=$((ok + 1))
done
[ "$ok" -eq 2 ]
ok $? "%j %t %n expanded; stdout and stderr each in their own file"
"$BIN/CilkRun" --tasks 1 --output 'both%%-%t.txt' --error 'both%%-%t.txt' \
    -- sh -c 'echo one; echo two >&2; echo three' >/dev/null 2>&1
[ "$(sort both%-0.txt | tr '\n' ' ')" = "one three two " ]
ok $? "the same pattern for both: one file with both streams; %% is %"
# A task that runs again starts its file over: only the attempt that
# finished remains (the prefixed stream shows both, marked).
"$BIN/CilkRun" --tasks 1 --retries 2 --output 'r-%t.txt' -- sh -c \
    'seq 1 500 | sed "s/^/attempt $CILKNOW_ATTEMPT: /"; [ $CILKNOW_ATTEMPT = 2 ]' \
    >/dev/null 2>"$T/r.err"
exit_is $? 0 "a task that fails once and then succeeds"
seq 1 500 | sed "s/^/attempt 2: /" | cmp -s - r-0.txt &&
    grep -q "task 0 on .* exited 1 (failure 1 of 2; it runs again)" "$T/r.err"
ok $? "its %t file holds the finished attempt's 500 lines only"
"$BIN/CilkRun" --output 'x-%q' -- true >"$T/bad.out" 2>&1
exit_is $? 2 "--output with an unknown %q is a usage error"
contains "$T/bad.out" "%q: not %j" "and says which"
"$BIN/CilkRun" --output 'nodir/%t.out' -- true >"$T/nodir.out" 2>&1
exit_is $? 1 "--output into a folder that does not exist fails at once"
contains "$T/nodir.out" "nodir/%t.out: cannot create files in nodir" \
    "and says so"
"$BIN/CilkRun" --tasks 1 --output 'sub%t/x.out' -- echo hello \
    >"$T/sub.out" 2>"$T/sub.err"
exit_is $? 1 "a file that cannot be made while the job runs fails the job"
grep -Eq '^\[127\.0\.0\.[23](/1)?\] hello$' "$T/sub.out" &&
    grep -q "cannot write sub0/x.out" "$T/sub.err"
ok $? "its lines came to stdout prefixed, and the error says why"

# 3. --detach and CilkPs -j.
cat >"$T/task.sh" <<'EOS'
#!/bin/sh
echo "task $CILKNOW_TASK"
case $CILKNOW_TASK in
1)	exit 3 ;;
2)	while [ ! -e "$GO" ]; do sleep 0.1; done ;;
esac
exit 0
EOS
chmod 755 "$T/task.sh"
export GO=$T/go
"$BIN/CilkRun" --detach --tasks 3 --retries 1 -- "$T/task.sh" \
    >"$T/d.out" 2>"$T/d.err"
exit_is $? 0 "--detach returns"
DETACHED=$(cat "$T/d.out")
[[ "$DETACHED" =~ ^[0-9]+$ ]] && [ ! -s "$T/d.err" ]
ok $? "it printed the job id ($DETACHED) and nothing else"
table() { "$BIN/CilkPs" -j "$DETACHED" >"$T/j.out" 2>&1 &&
	grep -Eq '^ +0 +done +127\.0\.0\.[23](/1)? +1 +0:0 +[0-9.]+$' "$T/j.out" &&
	grep -Eq '^ +1 +given-up +127\.0\.0\.[23](/1)? +1 +3:0 +[0-9.]+$' "$T/j.out" &&
	grep -Eq '^ +2 +running +127\.0\.0\.[23](/1)? +1 +- +[0-9.]+$' "$T/j.out"; }
wait_for 20 table
rc=$?
ok $rc "CilkPs -j: task 0 done 0:0, task 1 given up 3:0, task 2 running"
[ $rc -eq 0 ] || sed 's/^/#   | /' "$T/j.out"
contains "$T/j.out" '^ +TASK +STATE +NODE +TRIES +EXIT +SECONDS$' \
    "with the columns TASK STATE NODE TRIES EXIT SECONDS"
contains "$T/j.out" "^job $DETACHED of $ME: 3 tasks: 1 running, 1 done, 1 given-up$" \
    "and a summary line"
"$BIN/CilkPs" -j "$DETACHED" --json >"$T/j.json" 2>&1
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["job"] == int(sys.argv[2]) and d["want"] == 3, d
assert d["counts"]["done"] == 1 and d["counts"]["running"] == 1, d
t = d["tasks"]
assert [x["task"] for x in t] == [0, 1, 2], t
assert list(t[0].keys()) == ["task", "state", "node", "tries", "failures",
    "exit", "seconds"], t[0]
assert t[0]["state"] == "done" and t[0]["exit"] == {"code": 0, "signal": 0}
assert t[1]["state"] == "given-up" and t[1]["exit"] == {"code": 3,
    "signal": 0} and t[1]["failures"] == 1
assert t[2]["state"] == "running" and t[2]["exit"] is None
assert t[2]["node"].startswith("127.0.0.")' "$T/j.json" "$DETACHED"
ok $? "CilkPs -j --json: schema 1, counts, rows with exit code and signal"
"$BIN/CilkPs" -o user_key="$T/bob.id" -j "$DETACHED" >"$T/bob.out" 2>&1
exit_is $? 1 "bob may not see $ME's task table"
contains "$T/bob.out" "refused: job $DETACHED is $ME's: only $ME or an administrator" \
    "and is told why"
"$BIN/CilkPs" -j 99999 >"$T/unknown.out" 2>&1
exit_is $? 1 "CilkPs -j of an unknown job"
[ "$(cat "$T/unknown.out")" = "CilkPs: job 99999: no such job (see CilkPs)" ]
ok $? "says so in one line"
listed() { "$BIN/CilkPs" | awk '{ print $1 }' | grep -qx "$DETACHED"; }
touch "$GO"
wait_for 20 eval '! listed'
ok $? "the detached job ends once its last task is let go"
[ "$(cat "cilknow-$DETACHED-0.out")" = "task 0" ] &&
    [ "$(cat "cilknow-$DETACHED-2.out")" = "task 2" ] &&
    [ "$(cat "cilknow-$DETACHED-1.out")" = "task 1" ]
ok $? "its output is in cilknow-$DETACHED-%t.out, a file a task"
DETACHED=
"$BIN/CilkRun" -b $NOBROKER --detach --tasks 2 -- true >"$T/nb.out" \
    2>"$T/nb.err"
exit_is $? 3 "--detach with a broker that does not answer"
[ "$(wc -l <"$T/nb.err")" -eq 1 ] && [ ! -s "$T/nb.out" ] &&
    grep -q "did not answer" "$T/nb.err"
rc=$?
ok $rc "one line why, no job id"
[ $rc -eq 0 ] || sed 's/^/#   | /' "$T/nb.err"
finish
