#!/bin/bash
# CilkPs and CilkNodes against a real CilkJobBroker: usage errors, a
# broker that does not answer (exit 3, bounded, names the address),
# empty lists, pretend nodes and jobs registered by tests/tools/fake_node
# (columns, filters, both schemes), and --json read back by python3.
# leaks: every program (its queries are what it tests)
# ports: 17420-17429
. "$(dirname "$0")/lib.sh"
PS=$BIN/CilkPs
NODES=$BIN/CilkNodes
FAKE=$TOOLS/fake_node
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
AT=127.0.0.1:17420
NONE=127.0.0.1:17421

# now_ms : milliseconds on the clock date(1) reads
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# json_is FILE EXPR : FILE holds one JSON document d for which the
# python3 expression EXPR is true
json_is() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert eval(sys.argv[2]), d' "$1" "$2"
}

"$PS" -h >"$T/h.out" 2>&1
exit_is $? 0 "CilkPs -h"
contains "$T/h.out" '^usage: CilkPs' "CilkPs -h prints the usage"
"$NODES" -h >"$T/h.out" 2>&1
exit_is $? 0 "CilkNodes -h"
contains "$T/h.out" '^usage: CilkNodes' "CilkNodes -h prints the usage"
"$PS" -c "$C" -j abc >/dev/null 2>&1
exit_is $? 2 "CilkPs -j abc is a usage error"
"$PS" -c "$C" -j 0 >/dev/null 2>&1
exit_is $? 2 "CilkPs -j 0 is a usage error"
"$PS" -c "$C" --bogus >/dev/null 2>&1
exit_is $? 2 "CilkPs --bogus is a usage error"
"$PS" -c "$C" extra >/dev/null 2>&1
exit_is $? 2 "CilkPs with an operand is a usage error"
"$PS" -c "$C" -b 127.0.0.1:99999 >/dev/null 2>&1
exit_is $? 2 "CilkPs -b with a bad port is a usage error"
"$NODES" -c "$C" -s sleeping >"$T/s.out" 2>&1
exit_is $? 2 "CilkNodes -s sleeping is a usage error"
contains "$T/s.out" 'not a state' "and says why"
"$NODES" -c "$C" -j -3 >/dev/null 2>&1
exit_is $? 2 "CilkNodes -j -3 is a usage error"

# Nobody at the address: exit 3 within the timeout, and what to check.
for tool in CilkPs CilkNodes; do
	t0=$(now_ms)
	"$BIN/$tool" -c "$C" -o timeout=1 -b "$NONE" >"$T/none.out" 2>&1
	rc=$?
	ms=$(( $(now_ms) - t0 ))
	exit_is $rc 3 "$tool: no broker at $NONE"
	[ "$ms" -lt 5000 ]
	ok $? "$tool gives up within the timeout (${ms} ms, timeout 1 s)"
	contains "$T/none.out" "no answer from the broker at $NONE within 1 s" \
	    "$tool names the broker's address"
	contains "$T/none.out" "check that CilkJobBroker runs at $NONE" \
	    "$tool says what to check"
done
"$FAKE" -c "$C" -b "$NONE" -W 0.5 node idle 0 0 0 >/dev/null 2>&1
exit_is $? 3 "fake_node without a broker times out"

start broker "$SBIN/CilkJobBroker" -f -c "$C" -o run_dir="$T/run" \
    -o broker=$AT
BROKER=$LAST_PID
wait_for 10 "$BIN/CilkPing" -c "$C" -n 1 -W 0.2 $AT
ok $? "the broker answers pings within 10 s"

"$PS" -c "$C" -b $AT >"$T/ps0.out" 2>&1
exit_is $? 0 "CilkPs, no jobs"
[ "$(wc -l <"$T/ps0.out")" -eq 1 ]
ok $? "no jobs: just the header"
contains "$T/ps0.out" '^ +JOB +USER +HOST +NODES +MAX +PRI +AGE +REASON +COMMAND$' \
    "CilkPs header: JOB USER HOST NODES MAX PRI AGE REASON COMMAND"
"$NODES" -c "$C" -b $AT >"$T/n0.out" 2>&1
exit_is $? 0 "CilkNodes, no nodes"
[ "$(wc -l <"$T/n0.out")" -eq 1 ]
ok $? "no nodes: just the header"
contains "$T/n0.out" '^ +NODE +HOST +STATE +SLOTS +JOB +LOAD +IDLE +USERS +SEEN$' \
    "CilkNodes header: NODE HOST STATE SLOTS JOB LOAD IDLE USERS SEEN"
"$PS" -c "$C" -b $AT --json >"$T/ps0.json" 2>&1 &&
json_is "$T/ps0.json" 'd == {"schema": 1, "jobs": []}'
ok $? "CilkPs --json with no jobs: {\"schema\": 1, \"jobs\": []}"
"$NODES" -c "$C" -b $AT --json >"$T/n0.json" 2>&1 &&
json_is "$T/n0.json" 'd == {"schema": 2, "nodes": []}'
ok $? "CilkNodes --json with no nodes: {\"schema\": 2, \"nodes\": []}"
"$PS" -c "$C" -b $AT -o cluster_key="$T/none.key" >"$T/user.out" 2>&1
exit_is $? 0 "CilkPs without a cluster key asks in the user scheme"

# Pretend nodes (cluster scheme) and jobs (user scheme, as ann).
F="$FAKE -c $C -b $AT"
N1=$($F -a 127.0.0.3 -H 127.0.0.3 node idle 0.25 912 0 2>"$T/f.err")
exit_is $? 0 "fake node 127.0.0.3 registered (id $N1)"
N2=$($F -a 127.0.0.4 -H 127.0.0.4 node busy 1.5 3 2 2>>"$T/f.err")
exit_is $? 0 "fake node 127.0.0.4 registered (id $N2)"
CMD1='queens 12 "x" \y'
J1=$($F job 2 0 3700 "$CMD1" 2>>"$T/f.err")
exit_is $? 0 "fake job 1 registered by ann (id $J1)"
J2=$($F job 1 4 5 'sleep 1' 2>>"$T/f.err")
exit_is $? 0 "fake job 2 registered by ann (id $J2)"
$F -o user_key="$T/bob.id" -W 0.5 job 1 0 0 'bobs job' >/dev/null 2>&1
exit_is $? 3 "a job from bob, whose key is not installed, gets no answer"
N3=$($F -a 127.0.0.5 -H 127.0.0.5 node running 0.02 0 0 "$J1" 2>>"$T/f.err")
exit_is $? 0 "fake node 127.0.0.5 running job $J1 registered (id $N3)"

"$NODES" -c "$C" -b $AT >"$T/n.out" 2>&1
exit_is $? 0 "CilkNodes"
[ "$(wc -l <"$T/n.out")" -eq 4 ]
ok $? "three nodes listed"
contains "$T/n.out" "^ +$N1 +127\.0\.0\.3 +idle +0/1/1 +- +0\.25 +912 +0 +[0-9]+$" \
    "idle node: host, state, no job, load 0.25, idle 912, 0 users"
contains "$T/n.out" "^ +$N2 +127\.0\.0\.4 +busy +0/0/1 +- +1\.50 +3 +2 +[0-9]+$" \
    "busy node: load 1.50, idle 3, 2 users"
contains "$T/n.out" "^ +$N3 +127\.0\.0\.5 +running +1/1/1 +$J1 +0\.02 +0 +0 +[0-9]+$" \
    "running node: its job"
"$NODES" -c "$C" -b $AT -s busy >"$T/nb.out" 2>&1
[ "$(wc -l <"$T/nb.out")" -eq 2 ] && grep -q ' 127\.0\.0\.4 ' "$T/nb.out"
ok $? "CilkNodes -s busy: only the busy node"
"$NODES" -c "$C" -b $AT -s stopping >"$T/ns.out" 2>&1
[ "$(wc -l <"$T/ns.out")" -eq 1 ]
ok $? "CilkNodes -s stopping: none"
"$NODES" -c "$C" -b $AT -j "$J1" >"$T/nj.out" 2>&1
[ "$(wc -l <"$T/nj.out")" -eq 2 ] && grep -q ' 127\.0\.0\.5 ' "$T/nj.out"
ok $? "CilkNodes -j $J1: only the node running it"
"$NODES" -c "$C" -b $AT --json >"$T/n.json" 2>&1
python3 - "$T/n.json" "$N1" "$J1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 2 and len(d["nodes"]) == 3, d
keys = ["node", "host", "state", "slots", "jobs", "mem_mb", "load", "idle",
    "users", "seen", "pairs", "switches", "limits_unenforced"]
for n in d["nodes"]:
    assert list(n.keys()) == keys, n
    assert n["limits_unenforced"] == [], n	# fake_node enforces all
by = {n["host"]: n for n in d["nodes"]}
a = by["127.0.0.3"]
assert a["node"] == int(sys.argv[2]) and a["state"] == "idle", a
assert a["jobs"] == [] and a["load"] == 0.25 and a["idle"] == 912, a
assert a["users"] == 0 and 0 <= a["seen"] < 60, a
assert a["slots"] == {"running": 0, "lent": 1, "total": 1}, a
b = by["127.0.0.4"]
assert b["state"] == "busy" and b["load"] == 1.5 and b["users"] == 2, b
assert b["slots"] == {"running": 0, "lent": 0, "total": 1}, b
c = by["127.0.0.5"]
assert c["state"] == "running" and c["jobs"] == [int(sys.argv[3])], c
assert c["slots"] == {"running": 1, "lent": 1, "total": 1}, c
assert c["load"] == 0.02, c
PY
ok $? "CilkNodes --json: schema 2 keys, states, slots, loads, jobs [] when none"
"$NODES" -c "$C" -b $AT --json -s idle >"$T/ni.json" 2>&1
json_is "$T/ni.json" '[n["host"] for n in d["nodes"]] == ["127.0.0.3"]'
ok $? "CilkNodes --json -s idle filters like the text"

"$PS" -c "$C" -b $AT >"$T/ps.out" 2>&1
exit_is $? 0 "CilkPs"
[ "$(wc -l <"$T/ps.out")" -eq 3 ]
ok $? "two jobs listed"
IP='127\.0\.0\.1'
contains "$T/ps.out" \
    "^ +$J1 +ann +$IP +[0-9]+ +- +2 +1h0[12]m +(-|waiting) +queens 12 \"x\" \\\\y$" \
    "job 1: user, host, max -, pri 2, age 1h01m, reason, command last with spaces"
contains "$T/ps.out" "^ +$J2 +ann +$IP +[0-9]+ +4 +1 +[0-9]+s +(-|waiting) +sleep 1$" \
    "job 2: max 4, pri 1, age in seconds"
"$PS" -c "$C" -b $AT -u ann >"$T/pu.out" 2>&1
[ "$(wc -l <"$T/pu.out")" -eq 3 ]
ok $? "CilkPs -u ann: both jobs"
"$PS" -c "$C" -b $AT -u bob >"$T/pb.out" 2>&1
[ "$(wc -l <"$T/pb.out")" -eq 1 ]
ok $? "CilkPs -u bob: none"
# -j asks the job's own manager for its tasks (1030-output.sh); this
# job's is a fake that never answers.
"$PS" -c "$C" -b $AT -o timeout=0.5 -j "$J2" >"$T/pj.out" 2>&1
exit_is $? 3 "CilkPs -j $J2: its job manager does not answer"
[ "$(wc -l <"$T/pj.out")" -eq 1 ] &&
    grep -q "job $J2: no answer from its job manager at 127\.0\.0\.1:" "$T/pj.out"
ok $? "and CilkPs says so in one line"
"$PS" -c "$C" -b $AT -j 999 >"$T/p9.out" 2>&1
exit_is $? 1 "CilkPs -j 999: no such job"
[ "$(wc -l <"$T/p9.out")" -eq 1 ]
ok $? "CilkPs -j 999: one line"
"$PS" -c "$C" -b $AT --json >"$T/ps.json" 2>&1
python3 - "$T/ps.json" "$J1" "$J2" "$CMD1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and len(d["jobs"]) == 2, d
keys = ["job", "user", "host", "nodes", "max", "pri", "age", "cpus",
        "mem_mb", "reason", "command"]
for j in d["jobs"]:
    assert list(j.keys()) == keys, j
by = {j["job"]: j for j in d["jobs"]}
a = by[int(sys.argv[2])]
assert a["user"] == "ann" and a["host"] == "127.0.0.1", a
assert a["max"] is None and a["pri"] == 2 and 3700 <= a["age"] < 3800, a
assert a["command"] == sys.argv[4], a
assert isinstance(a["nodes"], int), a
b = by[int(sys.argv[3])]
assert b["max"] == 4 and b["pri"] == 1 and b["command"] == "sleep 1", b
assert a["cpus"] == 1 and a["mem_mb"] == 0, a
assert a["reason"] in (None, "waiting") and b["reason"] in (None, "waiting"), (a, b)
PY
ok $? "CilkPs --json: keys in order, max null, escaped command"
"$PS" -c "$C" -b $AT --json -u bob >"$T/pb.json" 2>&1
json_is "$T/pb.json" 'd == {"schema": 1, "jobs": []}'
ok $? "CilkPs --json -u bob filters like the text"
"$PS" -c "$C" -b $AT -o cluster_key="$T/none.key" -u ann >"$T/pu1.out" 2>&1
[ "$(wc -l <"$T/pu1.out")" -eq 3 ]
ok $? "the user scheme sees the same jobs"

# A control character in a command must not reach the terminal raw.
$F job 1 0 0 "$(printf 'evil\033[2Jcmd')" >/dev/null 2>>"$T/f.err"
"$PS" -c "$C" -b $AT >"$T/pe.out" 2>&1
contains "$T/pe.out" 'evil\?\[2Jcmd$' "control characters print as '?'"
"$PS" -c "$C" -b $AT --json >"$T/pe.json" 2>&1
json_is "$T/pe.json" '"evil\x1b[2Jcmd" in [j["command"] for j in d["jobs"]]'
ok $? "and as \\u001b in JSON"
# C1 controls (8-bit CSI and OSC, as UTF-8 and as raw bytes) and a
# right-to-left override: each one '?', nothing of them on the terminal.
$F job 1 0 0 "$(printf 'c1\302\2332J\302\2350;t\302\234\2332J\342\200\256x')" \
    >/dev/null 2>>"$T/f.err"
"$PS" -c "$C" -b $AT >"$T/pc1.out" 2>&1
contains "$T/pc1.out" 'c1\?2J\?0;t\?\?2J\?x$' "C1 controls and bidi overrides print as '?'"
! LC_ALL=C grep -q "$(printf '[\200-\237\033\007]')" "$T/pc1.out" &&
    ! grep -q "$(printf '\342\200\256')" "$T/pc1.out"
ok $? "no control byte of them in CilkPs's output"

stop "$BROKER"
"$PS" -c "$C" -b $AT -o timeout=0.5 >/dev/null 2>&1
exit_is $? 3 "after the broker stops, CilkPs exits 3"
finish
