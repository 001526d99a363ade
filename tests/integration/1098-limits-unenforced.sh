#!/bin/bash
# Worker limits a node cannot apply are never silent (issue 26): a
# node manager whose workers lack a cgroup controller (or are contained
# as process trees, which enforce none) says so in its log at start,
# and CilkNodes --json lists exactly those kinds of limit for the node
# as "limits_unenforced"; the text output keeps its columns.  What is
# expected is read from the node manager's own "workers: ..." line, so
# the test holds on a machine with or without a delegated cgroup v2.
# ports: 20570-20579
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20570
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
NLOG=$D/nodes/127.0.0.2/log

registered() { "$BIN/CilkNodes" | grep -q '^ *[0-9]'; }
wait_for 20 registered
ok $? "the node registers"
wait_for 10 grep -q "workers: " "$NLOG"
ok $? "the node manager says how its workers are contained"

# The controllers workers have, from "workers: cgroup v2 at B (LIST)".
line=$(grep -m1 "workers: " "$NLOG")
case $line in
*"process tree"*)
	mode=tree
	want="memory pids cpu io" ;;
*"cgroup v2 at"*)
	mode=cgroup
	have=$(echo "$line" | sed -n 's/.*(\([^()]*\))$/\1/p')
	want=""
	for c in memory pids cpu io; do
		case " $have " in *" $c "*) ;; *) want="$want $c" ;; esac
	done
	want=${want# } ;;
*)
	want="?" ;;
esac
echo "# workers: ${line#*workers: }; expected unenforced: '${want}'"
[ "$want" != "?" ]
ok $? "the containment line is understood"

"$BIN/CilkNodes" --json >"$T/nodes.json" 2>"$T/nodes.err"
exit_is $? 0 "CilkNodes --json"
got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(d["nodes"][0]["limits_unenforced"]))' "$T/nodes.json")
ok $? "its node has limits_unenforced, a list"
[ "$got" = "$want" ]
ok $? "limits_unenforced is [$got], the controllers workers lack [$want]"

if [ -z "$want" ]; then
	! grep -q "limits are not enforced\|limits not enforced here" "$NLOG"
	ok $? "every controller there: no warning"
elif [ "$mode" = tree ]; then
	contains "$NLOG" "contained as process trees, which is weaker than cgroups: .*; their limits are not enforced" \
	    "the log warns that process trees enforce no limit"
else
	contains "$NLOG" "worker limits not enforced here \(no such controller for workers\): $want\$" \
	    "the log warns which limits are not enforced"
fi

"$BIN/CilkNodes" >"$T/nodes.txt" 2>&1
exit_is $? 0 "CilkNodes"
contains "$T/nodes.txt" '^ NODE HOST +STATE +SLOTS +JOB +LOAD +IDLE USERS  SEEN$' \
    "the text keeps its columns"

"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1
finish
