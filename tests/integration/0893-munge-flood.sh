#!/bin/bash
# Under the munge user scheme, what is cheap is checked before munged is
# asked (msg_gate.h): 3,000 datagrams from one host, each with another
# garbage credential, cost munged at most a burst of 50 decodes and 20 a
# second (the rest are refused as rate_limited, uncounted by munged, and
# its log hardly grows), while a good credential from another host is
# still answered; and one good datagram sent 500 times is decoded once,
# the rest refused as replays without a decode.  Counts, not timings.
# ports: 20150-20169
. "$(dirname "$0")/lib.sh"
root_or_skip
command -v munged >/dev/null 2>&1 || skip_all "munged is not installed (apt-get install munge)"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20150
B=127.0.0.1:$PORT
"$BIN/CilkLocal" start --auth munge -n 1 -d "$D" -p $PORT \
    -o register_interval=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start --auth munge -n 1"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
P=$TOOLS/munge_probe
counter() {	# counter FILE NAME : the receiver's drop counter
	sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$T/$1"
}
MLOG=$D/munge/munged.log
mlines() { wc -l <"$MLOG"; }
wait_for 10 env MUNGE_PROBE_BIND=127.0.0.9 "$P" ok $B
MUNGE_PROBE_BIND=127.0.0.9 "$P" ok $B >"$T/ok0.out" 2>&1
contains "$T/ok0.out" "^answer yes$" "a good credential from 127.0.0.9 is answered"
b0=$(counter ok0.out bad_credential)
r0=$(counter ok0.out replay)
l0=$(counter ok0.out rate_limited)
m0=$(mlines)

"$P" garbage=3000 $B >"$T/flood.out" 2>&1
contains "$T/flood.out" "^sent 3000 in" "3000 garbage credentials from 127.0.0.1 sent"
MUNGE_PROBE_BIND=127.0.0.9 "$P" ok $B >"$T/ok1.out" 2>&1
contains "$T/ok1.out" "^answer yes$" "a good credential from 127.0.0.9 is still answered"
b1=$(counter ok1.out bad_credential)
l1=$(counter ok1.out rate_limited)
m1=$(mlines)
echo "# bad_credential +$((b1 - b0)), rate_limited +$((l1 - l0)), munged.log +$((m1 - m0)) lines"
[ $((b1 - b0)) -ge 50 ] && [ $((b1 - b0)) -le 200 ]
ok $? "munged decoded 50 to 200 of them ($((b1 - b0)))"
[ $((b1 - b0 + l1 - l0)) -ge 2990 ]
ok $? "the rest were refused undecoded as rate_limited ($((l1 - l0)))"
[ $((m1 - m0)) -le 250 ]
ok $? "munged's log grew by at most 250 lines ($((m1 - m0)))"

MUNGE_PROBE_BIND=127.0.0.10 "$P" replay=500 $B >"$T/replay.out" 2>&1
contains "$T/replay.out" "^sent 500 in" "one good datagram sent 500 times from 127.0.0.10"
r2=$(counter replay.out replay)
b2=$(counter replay.out bad_credential)
[ $((r2 - r0)) -ge 499 ]
ok $? "499 of them refused as replays ($((r2 - r0)))"
m2=$(mlines)
[ $((m2 - m1)) -le 5 ]
ok $? "without asking munged: its log grew by $((m2 - m1)) lines"
[ "$b2" -eq "$b1" ]
ok $? "and no bad credential more ($((b2 - b1)))"
finish
