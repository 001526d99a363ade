#!/bin/bash
# Launch pads and worker folders never outlive their job (DESIGN §11):
# 50 short jobs of an ordinary user (nobody, attested by the cluster's
# private munged) on 2 nodes, ending every way a job ends: done, ended
# by CilkKill, interrupted (SIGINT to CilkRun), its job manager killed
# (SIGKILL); afterwards no launch pad of this cluster runs and no worker
# folder is left, within a bounded wait.
# ports: 19840-19859
. "$(dirname "$0")/lib.sh"
root_or_skip
command -v munged >/dev/null 2>&1 ||
    skip_all "munged is not installed (apt-get install munge)"
command -v setpriv >/dev/null 2>&1 || skip_all "setpriv is not installed"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=19840
"$BIN/CilkLocal" start --auth munge -n 2 -d "$D" -p $PORT \
    -o register_interval=1 -o stop_grace=2 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start --auth munge -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
wait_for 15 nodes_are idle 2
ok $? "2 idle nodes"

mkdir -p "$T/work"
chmod 777 "$T/work"
cd "$T/work" || exit 1
as_nobody() {
	setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups \
	    env HOME="$T/work" CILKNOW_SBIN="$TSBIN" "$@"
}
# A build tree nobody cannot reach (a clone in /root is 0700 on a fresh
# machine): nobody runs copies of the programs.
TBIN=$BIN TSBIN=$SBIN
if ! as_nobody test -x "$BIN/CilkRun" || ! as_nobody test -x "$SBIN/CilkJobManager"
then
	mkdir -p "$T/b" && cp -a "$BIN" "$SBIN" "$T/b/" &&
	    chmod -R a+rX "$T/b" || exit 1
	TBIN=$T/b/bin TSBIN=$T/b/sbin
fi
# The cluster's own: launch pads whose command line names its folder.
pads() {
	for p in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null
		echo
	done | grep -c "^[^ ]*CilkLaunchPad .*$D/"
}
folders() { find "$D"/nodes/*/state/workers -mindepth 1 -maxdepth 1 | wc -l; }
ended() { ! kill -0 "$1" 2>/dev/null; }

done_ok=0 killed=0 interrupted=0 crashed=0 codes=
for i in $(seq 50); do
	out=$T/j$i.out
	case $((i % 25)) in
	5|12|19) # a task still running when the job is ended
		as_nobody timeout -k 2 60 "$TBIN/CilkRun" --tasks 2 -- \
		    sleep 30 >"$out" 2>&1 &
		P=$!
		PIDS="$PIDS $P"
		wait_for 20 grep -q registered "$out"
		# ended while its tasks run, not before they started
		wait_for 20 nodes_are running 2
		case $((i % 25)) in
		5)	job=$(sed -n 's/.*job \([0-9]*\) registered.*/\1/p' \
			    "$out" | head -1)
			as_nobody "$TBIN/CilkKill" "$job" >/dev/null 2>&1
			wait "$P"
			rc=$?
			codes="$codes j$i:$rc"
			[ $rc -eq 143 ] && killed=$((killed + 1)) ;;
		12)	# CilkRun execs the job manager: it is timeout's child
			kill -INT "$(pgrep -P "$P")"
			wait "$P"
			rc=$?
			codes="$codes j$i:$rc"
			[ $rc -eq 130 ] && interrupted=$((interrupted + 1)) ;;
		19)	kill -KILL "$(pgrep -P "$P")"
			wait "$P"
			crashed=$((crashed + 1)) ;;
		esac ;;
	*)	as_nobody timeout -k 2 60 "$TBIN/CilkRun" --tasks 2 -- true \
		    >"$out" 2>&1 && done_ok=$((done_ok + 1)) ;;
	esac
done
[ "$done_ok" -eq 44 ]
ok $? "44 jobs ran to their end ($done_ok did)"
[ "$killed" -eq 2 ] && [ "$interrupted" -eq 2 ] && [ "$crashed" -eq 2 ]
ok $? "2 were ended by CilkKill ($killed), 2 interrupted ($interrupted), 2 lost their job manager ($crashed)" || {
	echo "# exit codes:$codes"
	for i in 5 12 30 37; do
		tail -n 15 "$T/j$i.out" | sed "s/^/#   j$i | /"
	done
}
no_leftovers() { [ "$(pads)" -eq 0 ] && [ "$(folders)" -eq 0 ]; }
# A job manager killed outright is noticed after 3 silent intervals.
wait_for 60 no_leftovers
ok $? "no launch pad and no worker folder left ($(pads) pads, $(folders) folders)"
wait_for 15 nodes_are idle 2
ok $? "both nodes idle again"
finish
