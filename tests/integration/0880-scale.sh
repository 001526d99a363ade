#!/bin/bash
# A broker beyond one datagram of rows: 2,000 pretend node managers
# (tests/tools/fakenodes, one process, 127.2.0.0/16) registered beside a
# real CilkLocal node.  The broker holds all of them (the old table held
# 512), CilkNodes fetches them all in pages and the broker filters
# `-s idle` and `-s busy`, and a real job still runs on the real node.
# ports: 19000-19019
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19000		# broker; the real node 19001
FAKEPORT=19010		# every pretend node sends from here
N=2000			# every 4th of them busy: 500 busy, 1500 idle
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=2 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf

rows() { "$BIN/CilkNodes" "$@" | tail -n +2 | wc -l; }
rows_are() { want=$1; shift; test "$(rows "$@")" -eq "$want"; }
wait_for 15 rows_are 1 -s idle
ok $? "the real node is idle"

start fakes "$TOOLS/fakenodes" -n $N -B 4 -i 2 -t 35 -p $FAKEPORT
FAKES=$LAST_PID
wait_for 15 rows_are $((N + 1))
ok $? "CilkNodes lists $N pretend nodes and the real one ($(rows))"
"$BIN/CilkNodes" --json >"$T/all.json"
python3 - "$T/all.json" $((N + 1)) <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["nodes"]
assert list(d.keys()) == ["schema", "nodes"] and d["schema"] == 2, d.keys()
assert len(n) == int(sys.argv[2]), len(n)
assert len({x["node"] for x in n}) == len(n), "ids repeat"
assert sum(1 for x in n if x["host"].startswith("fake")) == len(n) - 1
PY
ok $? "CilkNodes --json: one object, every node once"
rows_are $((N * 3 / 4 + 1)) -s idle
ok $? "CilkNodes -s idle: 1500 pretend and the real node ($(rows -s idle))"
rows_are $((N / 4)) -s busy
ok $? "CilkNodes -s busy: 500 ($(rows -s busy))"
"$BIN/CilkNodes" -o cluster_key="$T/none.key" >"$T/user.out" 2>&1
test "$(tail -n +2 "$T/user.out" | wc -l)" -eq $((N + 1))
ok $? "and in the user scheme, a cookie first"

# A real job beside them: its one task runs on the real node.
timeout 30 "$BIN/CilkRun" --tasks 1 -- sh -c 'echo ran on $CILKNOW_NODE' \
    >"$T/run.out" 2>&1
exit_is $? 0 "CilkRun --tasks 1 ends"
contains "$T/run.out" '^\[127\.0\.0\.2\] ran on 127\.0\.0\.2$' \
    "its task ran on the real node"
stop "$FAKES"
contains "$T/fakes.out" "^fakenodes: $N nodes, [0-9]+ sent, [0-9]+ acks, 0 refused" \
    "no pretend node was refused ($(cat "$T/fakes.out"))"
finish
