#!/bin/bash
# The weaker containment where no cgroup v2 is used (cgroup = none): the
# launch pad is a child subreaper, so a worker that setsid()s and double
# forks still leaves its grandchild in the launch pad's tree, and the
# owner's return ends it.  The node manager says once that it is weaker.
# ports: 17680-17699
. "$(dirname "$0")/lib.sh"
# The jobs run as other users, who may not reach the build tree (a
# clone in /root is 0700): they run a copy in the test's folder.
HOSTILE=$T/hostile
cp "$TOOLS/hostile" "$HOSTILE" && chmod 755 "$HOSTILE" ||
    { echo "Bail out! cannot copy $TOOLS/hostile"; exit 1; }
root_or_skip
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=17680
"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=2 -o cgroup=none >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 1 -o cgroup=none"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
LOG=$D/nodes/127.0.0.2/log
node_is() { "$BIN/CilkNodes" | grep -Eq "127\.0\.0\.2 +$1 "; }
wait_for 15 node_is idle
ok $? "the node is lent"
wait_for 5 grep -q "workers: " "$LOG"
echo "# $(grep -m1 -o 'workers: .*' "$LOG")"
contains "$LOG" "contained as process trees, which is weaker than cgroups: cgroup = none" \
    "the node manager says the fallback is weaker, and why"
[ "$(grep -c 'weaker than cgroups' "$LOG")" -eq 1 ]
ok $? "once"

"$BIN/CilkKey" generate-user -u nobody "$T/nobody.id" >/dev/null &&
    "$BIN/CilkKey" public "$T/nobody.id" >"$D/users/nobody.pub" &&
    reload_local "$D"
ok $? "nobody's key installed, the daemons reloaded"
mkdir "$T/work" && chmod 777 "$T/work" && cd "$T/work" || exit 1
export HOSTILE_PIDFILE=$T/work/escape.pid HOSTILE_ALARM=120
start esc "$BIN/CilkRun" -o user_key="$T/nobody.id" -- "$HOSTILE" escape
wait_for 15 test -s "$HOSTILE_PIDFILE"
G=$(cat "$HOSTILE_PIDFILE" 2>/dev/null)
wait_for 10 grep -q "escape ready" "$T/esc.out"
W=$(sed -nE 's/.*ready pid=([0-9]+).*/\1/p' "$T/esc.out" | head -n 1)
[ -n "$G" ] && [ -n "$W" ] &&
    [ "$(ps -o sid= -p "$G" | tr -d ' ')" != "$(ps -o sid= -p "$W" | tr -d ' ')" ]
ok $? "the escaper's grandchild left the worker's session"
LPAD=$(cat "$D"/nodes/127.0.0.2/state/workers/j*/lpad.pid 2>/dev/null | head -n 1)
[ -n "$LPAD" ] && [ "$(ps -o ppid= -p "$G" | tr -d ' ')" = "$LPAD" ]
ok $? "and, orphaned, it is the launch pad's child (the subreaper's)"
echo idletime=0 >"$D/nodes/127.0.0.2/sensors"
wait_for 10 sh -c "! kill -0 $G 2>/dev/null"
ok $? "the owner returns: the grandchild is gone too"
wait_for 10 sh -c "! ps -eo user= | grep -q '^nobody '"
ok $? "no process of the job is left"
wait_for 10 node_is busy
ok $? "the node is the owner's"
stop "$LAST_PID"
finish
