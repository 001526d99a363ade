#!/bin/bash
# A batch of short tasks does not wait for anyone's timer (DESIGN §11):
# a node whose task ended asks its job manager for the next one at once.
# The nodes here re-register once an hour, so a task left to the
# broker's next thought of it (the old tail stall, ~a register interval)
# would not end within the bound below.
#  1. 20 runs of `CilkRun --tasks 10 -- true` on 4 nodes each end, all
#     10 tasks done, well within 30 s (the times are printed, not
#     asserted);
#  2. the tasks of a run spread over the nodes (more than one runs them).
# cpu: 200 short tasks, each a launch pad and worker
# ports: 19800-19819
# The plain build where make check has one: what is checked is time,
# and sanitized the 200 launch pads took 42 s of CPU to the plain
# build's 11 (24 s alone, 165 s in make check's first minutes); the
# batch path's memory is checked under the sanitizers by 1020-1070.
CILKNOW_BUILD=${CILKNOW_PLAIN_BUILD:-$CILKNOW_BUILD}
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19800
"$BIN/CilkLocal" start -n 4 -d "$D" -p $PORT -o register_interval=3600 \
    -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 4, register_interval=3600"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 30 nodes_are idle 4
ok $? "4 idle nodes"

cd "$T" || exit 1
ended=0 spread=0 times=
for i in $(seq 20); do
	s=$(date +%s%N)
	timeout -k 2 30 "$BIN/CilkRun" --tasks 10 -- true >"$T/run$i.out" 2>&1
	rc=$?
	ms=$(( ($(date +%s%N) - s) / 1000000 ))
	times="$times $ms"
	if [ "$rc" -eq 0 ] && grep -q 'all tasks done (10 done' "$T/run$i.out"
	then
		ended=$((ended + 1))
	else
		echo "# run $i: exit $rc after $ms ms"
		sed 's/^/#   | /' "$T/run$i.out" | tail -15
	fi
	n=$(grep -o 'task [0-9]* on [^ ]*' "$T/run$i.out" | awk '{ print $4 }' |
	    sort -u | wc -l)
	[ "$n" -gt 1 ] && spread=$((spread + 1))
done
echo "# milliseconds per run:$times"
[ "$ended" -eq 20 ]
ok $? "20 runs of --tasks 10 each ended with 10 done ($ended did)"
[ "$spread" -ge 10 ]
ok $? "the tasks of most runs ran on more than one node ($spread of 20)"
finish
