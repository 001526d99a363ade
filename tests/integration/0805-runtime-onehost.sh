#!/bin/bash
# Several workers of one job on one machine (a node's slots): two
# workers from one address, named as a node manager names its slots
# (HOST and HOST/1), are two members of one host; a third from the same
# address under another node's name is another host.  The answer is
# right, and work moves between the two workers of one host.  The
# workers are started by hand against the root's clearinghouse (no
# broker: nothing else starts workers).  Port 19400, where nobody answers.
# ports: 19400-19419
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || exit 1
echo "broker = 127.0.0.1:19400" >>"$T/cilknow.conf"	# nobody there
export CILKNOW_CONF=$T/cilknow.conf
cd "$T" || exit 1

start q "$BIN/queens" -d 3000 12
Q=$LAST_PID
wait_for 20 grep -q "CilkChouse: listening on .*:[0-9]" "$T/q.out"
ok $? "the root's clearinghouse listens"
P=$(sed -n 's/^.*CilkChouse: listening on .*:\([0-9]*\)$/\1/p' "$T/q.out" |
    head -1)
worker() {	# worker NAME NODE
	CILKNOW_NODE=$2 start "$1" "$BIN/queens" -NoChouse -Host=127.0.0.1 \
	    -Port="$P" -- -d 3000 12
}
worker w1 127.0.0.1
wait_for 20 grep -q "worker 2 joined" "$T/q.out"
worker w2 127.0.0.1/1
wait_for 20 grep -q "worker 3 joined" "$T/q.out"
worker w3 127.0.0.9
wait_for 20 grep -q "worker 4 joined" "$T/q.out"
ok $? "three workers joined"
contains "$T/q.out" "worker 2 joined from 127\.0\.0\.1 \(pid [0-9]+\); 2 workers, on host 2" \
    "the first worker of 127.0.0.1 is a member, on host 2"
contains "$T/q.out" "worker 3 joined from 127\.0\.0\.1/1 \(pid [0-9]+\); 3 workers, on host 2" \
    "its second slot, from the same address, is another member on the same host"
contains "$T/q.out" "worker 4 joined from 127\.0\.0\.9 \(pid [0-9]+\); 4 workers, on host 3" \
    "another node's name from the same address is another host"
ended() { ! kill -0 "$1" 2>/dev/null; }
wait_for 120 ended $Q
ok $? "queens ends"
wait "$Q"
exit_is $? 0 "queens exits 0"
answer_is "$T/q.out" 14200 "queens 12 prints 14200"
near=$(sed -n 's/.* migrated (\([0-9]*\) within a host).*/\1/p' "$T/q.out")
[ "${near:-0}" -gt 0 ]
ok $? "units migrated between the two workers of one host"
grep "every unit is final" "$T/q.out" | sed 's/^/# /'
[ "$TAP_FAILED" -gt 0 ] && sed 's/^/#   q | /' "$T/q.out"
finish
