#!/bin/bash
# CilkNodes drain, resume and -R on a 3-node CilkLocal cluster (issue
# 28).  A node drained while it runs a job shows as drain, its worker
# runs on, and a new job is given the other nodes only; once its job
# ends it shows as drained and still takes nothing; resumed, it is given
# work at once.  Only an administrator (admins) may drain or resume:
# another user is refused (exit 1, saying why); an unknown node is exit
# 1, a drain without a reason a usage error (2).  -R lists the drained
# node with its reason, who drained it and since when, and --json has
# them.  A node manager stopped (SIGKILL) is listed as down, "silent
# since TIME", after 3 register intervals, and -R lists it too.
# ports: 20400-20419
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20400
# The cluster's maker runs the jobs; carol alone administers it.
"$BIN/CilkLocal" start -n 3 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o admins=carol >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 3"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
ME=$(id -un)
N=$BIN/CilkNodes
"$BIN/CilkKey" generate-user -u carol "$T/carol.id" >/dev/null &&
    "$BIN/CilkKey" public "$T/carol.id" >"$D/users/carol.pub" &&
    chmod 644 "$D/users/carol.pub"
ok $? "a key for carol"
reload_local "$D"	# users' keys count from a reload on
ok $? "the daemons reload and know carol's key"
CAROL="-o user_key=$T/carol.id"
BLOG=$D/broker.log

nodes_are() {	# nodes_are STATE N
	test "$("$N" -s "$1" | tail -n +2 | wc -l)" -eq "$2"
}
MARK=cilknow-drain-$$
workers() { shells "^sh -c .*$MARK-$1\$" | sort; }
workers_are() { test "$(workers "$1" | wc -l)" -eq "$2"; }
job_of() {	# job_of NAME : the job number CilkPs shows for it
	"$BIN/CilkPs" | awk -v m="$MARK-$1" 'index($0, m) { print $1 }'
}
listed() { test -n "$(job_of "$1")"; }
host_of() {	# host_of JOB : the host of the node running it
	"$N" | awk -v j="$1" '$5 == j { print $2; exit }'
}
state_is() {	# state_is HOST STATE [JOB]
	"$N" | awk -v h="$1" -v s="$2" -v j="${3:-}" \
	    '$2 == h && $3 == s && (j == "" || $5 == j) { f = 1 } END { exit !f }'
}
# stays N SECONDS CMD... : CMD holds at every look for SECONDS (a thing
# that must not happen cannot be waited for; it is looked for this long).
stays() {
	limit=$1; shift
	end=$(( $(date +%s%N) + limit * 1000000000 ))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		"$@" >/dev/null 2>&1 || { echo "# stays: failed: $*"; return 1; }
		sleep 0.2
	done
	return 0
}
# run NAME ARGS... : a long job of $ME's, in the background.
run() {
	job=$1; shift
	start "run-$job" "$BIN/CilkRun" "$@" -- sh -c "sleep 600; : $MARK-$job"
}
wait_for 15 nodes_are idle 3
ok $? "3 idle nodes"

# 1. Job a on one node; the node is drained under it.
run a -n 1
wait_for 20 workers_are a 1 && wait_for 10 listed a
ok $? "job a runs on one node"
JA=$(job_of a)
wait_for 10 sh -c "test -n \"\$(\"$N\" | awk -v j=$JA '\$5 == j')\""
X=$(host_of "$JA")
WA=$(workers a)
ok "$([ -n "$X" ]; echo $?)" "CilkNodes shows job $JA on node $X"

"$N" drain "$X" --reason "bad fan" >"$T/me.out" 2>&1
exit_is $? 1 "$ME, not an administrator, may not drain $X"
contains "$T/me.out" "refused: only an administrator \(the admins key\) may drain or resume nodes; $ME is not one" \
    "and is told why"
contains "$BLOG" "drain of $X by $ME refused" "the broker logged the refusal"
"$N" $CAROL drain "$X" >"$T/noreason.out" 2>&1
exit_is $? 2 "a drain without --reason is a usage error"
contains "$T/noreason.out" "say why with --reason" "saying so"
"$N" $CAROL drain no-such-node --reason x >"$T/nosuch.out" 2>&1
exit_is $? 1 "an unknown node"
contains "$T/nosuch.out" "no such node: no-such-node" "is named"
"$N" $CAROL resume "$X" >"$T/notdrained.out" 2>&1
exit_is $? 1 "a node not drained cannot be resumed"
contains "$T/notdrained.out" "is not drained" "saying so"
"$N" frobnicate "$X" >/dev/null 2>&1
exit_is $? 2 "an unknown command is a usage error"

"$N" $CAROL drain "$X" --reason "bad fan" >"$T/drain.out" 2>&1
exit_is $? 0 "carol, an administrator, drains $X"
contains "$T/drain.out" "drained: its running work goes on, it takes no new work" \
    "CilkNodes says what it did"
contains "$BLOG" "drained: .*\(by carol, reason: bad fan\)" "the broker logged it"
wait_for 5 state_is "$X" drain "$JA"
ok $? "$X shows as drain, still running job $JA"
ok "$(kill -0 $WA 2>/dev/null; echo $?)" "its worker runs on ($WA)"

# 2. A new job is given the two other nodes, not the drained one.
run b
wait_for 20 workers_are b 2 && wait_for 10 listed b
ok $? "job b runs on the 2 nodes not drained"
JB=$(job_of b)
b_on_2_x_drain() {
	workers_are b 2 && "$N" | awk -v h="$X" -v j="$JA" \
	    '$2 == h && $3 == "drain" && $5 == j { f = 1 } END { exit !f }'
}
stays 5 b_on_2_x_drain
ok $? "for 5 s: job b stays on 2 nodes, $X runs job $JA alone"

# 3. -R and --json.
"$N" -R >"$T/R.out" 2>&1
exit_is $? 0 "CilkNodes -R"
contains "$T/R.out" "^ *NODE +HOST +STATE +USER +SINCE +REASON$" "has its header"
contains "$T/R.out" "^ *[0-9]+ +$X +drain +carol +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} +bad fan$" \
    "lists $X: drain, by carol, since when, why"
"$N" -R --json >"$T/R.json" 2>&1
contains "$T/R.json" "\"host\": \"$X\", \"state\": \"drain\", \"reason\": \"bad fan\", \"user\": \"carol\", \"since\": [0-9]+" \
    "-R --json has it too"
"$N" --json >"$T/nodes.json" 2>&1
contains "$T/nodes.json" "\"host\": \"$X\", \"state\": \"drain\", \"reason\": \"bad fan\", \"user\": \"carol\", \"since\": [0-9]+, \"slots\"" \
    "CilkNodes --json: state, reason, user, since"
"$N" -s drain >"$T/s.out" 2>&1
[ "$(tail -n +2 "$T/s.out" | wc -l)" -eq 1 ] && grep -q " $X " "$T/s.out"
ok $? "-s drain lists $X alone"

# 4. Its job ends: drained, and still given nothing.
"$BIN/CilkKill" "$JA" >/dev/null 2>&1
exit_is $? 0 "job $JA ended"
wait_for 15 state_is "$X" drained
ok $? "$X shows as drained once it runs nothing"
b_on_2_x_drained() { workers_are b 2 && "$N" | grep -Eq " $X +drained "; }
stays 4 b_on_2_x_drained
ok $? "for 4 s: job b stays on 2 nodes, $X idle and drained"

# 5. Resumed: it takes work again.
"$N" -o user_key="$T/carol.id" resume "$X" >"$T/resume.out" 2>&1
exit_is $? 0 "carol resumes $X"
contains "$T/resume.out" "resumed: it takes work again" "saying so"
wait_for 15 workers_are b 3
ok $? "job b gets a third worker"
wait_for 10 state_is "$X" running "$JB"
ok $? "on $X"
"$N" -R >"$T/R2.out" 2>&1
[ "$(tail -n +2 "$T/R2.out" | wc -l)" -eq 0 ]
ok $? "-R lists no node now"

# 6. A node manager stopped: down, with a reason, after 3 intervals.
Z=$("$N" | awk -v x="$X" 'NR > 1 && $2 != x { print $2; exit }')
NM=$(awk -v a="$Z" '$1 == "node" && index($3, a) == 1 { print $2 }' "$D/pids")
ok "$([ -n "$NM" ] && kill -KILL "$NM"; echo $?)" "node manager of $Z (pid $NM) killed"
wait_for 15 sh -c "'$N' | grep -Eq '^ *[0-9]+ +$Z +down '"
ok $? "$Z is listed as down"
contains "$BLOG" "node [0-9]+ \($Z at $Z:[0-9]+\) silent for [0-9]+ s: forgotten" \
    "the broker said it forgot it"
"$N" -R >"$T/R3.out" 2>&1
contains "$T/R3.out" "^ *[0-9]+ +$Z +down +- +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} +silent since [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$" \
    "-R: down, by no one, silent since when"
"$N" -s down >"$T/down.out" 2>&1
[ "$(tail -n +2 "$T/down.out" | wc -l)" -eq 1 ]
ok $? "-s down lists it alone"
"$N" --json >"$T/down.json" 2>&1
contains "$T/down.json" "\"host\": \"$Z\", \"state\": \"down\", \"reason\": \"silent since [^\"]*\", \"user\": null, \"since\": [0-9]+" \
    "--json: down with its reason"

"$BIN/CilkKill" "$JB" >/dev/null 2>&1
"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1
finish
