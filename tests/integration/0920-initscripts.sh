#!/bin/bash
# The SysV init scripts for real: the tree is installed into a temporary
# root (PREFIX, SYSCONFDIR, RUNSTATEDIR and LOCALSTATEDIR all inside
# it, so the installed scripts name the installed daemons), the scripts
# are put in ROOT/etc/init.d as an administrator would, and each action
# is run: start brings the daemon up (CilkPing answers), status reports
# it, reload rereads the keys, restart gives a new process, stop leaves
# none.
# ports: 17820-17829
# chain: make install (conf-gen) writes into the shared build folder: one at a time
. "$(dirname "$0")/lib.sh"
: "${CILKNOW_TOP:?}"
command -v start-stop-daemon >/dev/null || {
	echo "ok 1 # SKIP start-stop-daemon is missing"; finish; exit 0; }
R=$T/root
BADDR=127.0.0.1:17820
NADDR=127.0.0.1:17821
make -s -C "$CILKNOW_TOP" -o all BUILD="$CILKNOW_BUILD" PREFIX="$R/usr" \
    SYSCONFDIR="$R/etc" RUNSTATEDIR="$R/run" LOCALSTATEDIR="$R/var" \
    install >"$T/install.out" 2>&1
exit_is $? 0 "install into $R"
E=$R/usr/share/doc/cilknow/examples
mkdir -p "$R/etc/init.d" "$R/etc/default" "$R/etc/cilknow/users" "$R/run" \
    "$R/var/lib"
cp "$E"/init.d/* "$R/etc/init.d/"
cp "$E"/default/* "$R/etc/default/"
K=$R/etc/cilknow
"$R/usr/bin/CilkKey" generate-cluster "$K/cluster.key" >/dev/null
echo idletime=1000000 >"$T/sensors"
cat >"$K/cilknow.conf" <<EOC
broker = $BADDR
cluster_key = $K/cluster.key
cluster_pub = $K/cluster.pub
user_keys = $K/users
state_dir = $R/var/lib/cilknow
run_dir = $R/run/cilknow
register_interval = 1
sensors = file:$T/sensors
timeout = 1
EOC
chmod 644 "$K/cilknow.conf"
echo "DAEMON_ARGS=\"-o listen=$NADDR\"" >>"$R/etc/default/cilknow-nodemanager"
export CILKNOW_CONF=$K/cilknow.conf
BS=$R/etc/init.d/cilknow-broker
NS=$R/etc/init.d/cilknow-nodemanager
BPID=$R/run/cilknow/CilkJobBroker.pid
NPID=$R/run/cilknow/CilkNodeManager.pid
# Whatever happens, the daemons the scripts started go away.
finally() {
	"$NS" stop >/dev/null 2>&1; "$BS" stop >/dev/null 2>&1
	for f in "$BPID" "$NPID"; do
		[ -s "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	cleanup
}
trap finally EXIT
ping_broker() { "$R/usr/bin/CilkPing" -n 1 -W 0.5 "$BADDR"; }
# Not counting zombies: detached daemons are reparented to PID 1, which
# in a container may not reap them.
ours() { pgrep -r RSDT -f "^$R/usr/sbin/$1" ; }
alive() { [ -n "$(ps -o stat= -p "$1" | grep -v '^Z')" ]; }

"$BS" status >"$T/st0.out" 2>&1
exit_is $? 3 "status before start: not running"
"$BS" start >"$T/start.out" 2>&1
exit_is $? 0 "cilknow-broker start"
wait_for 10 ping_broker
ok $? "the broker answers CilkPing"
test -s "$BPID" && [ "$(cat "$BPID")" = "$(ours CilkJobBroker)" ]
ok $? "its pid file names the one running broker"
"$BS" status >"$T/st1.out" 2>&1
exit_is $? 0 "status: running"
contains "$T/st1.out" "cilknow-broker is running \(pid $(cat "$BPID")\)" \
    "status names the pid"
"$BS" start >/dev/null 2>&1
exit_is $? 0 "a second start succeeds"
[ "$(ours CilkJobBroker | wc -l)" -eq 1 ]
ok $? "and starts no second broker"

"$NS" start >"$T/nstart.out" 2>&1
exit_is $? 0 "cilknow-nodemanager start"
wait_for 10 "$R/usr/bin/CilkPing" -n 1 -W 0.5 "$NADDR"
ok $? "the node manager answers on the address from /etc/default"
wait_for 10 sh -c "'$R/usr/bin/CilkNodes' | grep -q idle"
ok $? "and has registered with the broker (CilkNodes shows it idle)"
"$NS" status >/dev/null 2>&1
exit_is $? 0 "node manager status: running"

# reload: a new cluster key is taken without a restart.
pid=$(cat "$BPID")
"$R/usr/bin/CilkKey" -F generate-cluster "$K/cluster.key" >/dev/null
ping_broker >/dev/null 2>&1
exit_is $? 3 "with a new key on disk the running broker does not answer yet"
"$BS" reload >"$T/reload.out" 2>&1
exit_is $? 0 "reload"
wait_for 10 ping_broker
ok $? "after reload it answers under the new key"
[ "$(cat "$BPID")" = "$pid" ] && alive "$pid"
ok $? "the same process"
chmod g+w "$K/cilknow.conf"
"$BS" force-reload >"$T/bad.out" 2>&1
exit_is $? 1 "force-reload refuses a configuration group can write"
chmod g-w "$K/cilknow.conf"
alive "$pid" && ping_broker >/dev/null 2>&1
ok $? "and the broker runs on, untouched"
"$BS" force-reload >/dev/null 2>&1
exit_is $? 0 "force-reload with a good configuration"

"$BS" restart >"$T/restart.out" 2>&1
exit_is $? 0 "restart"
wait_for 10 ping_broker
ok $? "the broker answers after restart"
[ "$(cat "$BPID")" != "$pid" ] && ! alive "$pid"
ok $? "in a new process; the old one is gone"

"$NS" stop >/dev/null 2>&1
exit_is $? 0 "node manager stop"
"$BS" stop >"$T/stop.out" 2>&1
exit_is $? 0 "broker stop"
[ -z "$(ours CilkJobBroker)" ] && [ -z "$(ours CilkNodeManager)" ]
ok $? "no daemon process is left"
"$BS" status >/dev/null 2>&1
exit_is $? 3 "status after stop: not running"
"$BS" stop >/dev/null 2>&1
exit_is $? 0 "stopping a stopped daemon succeeds"
"$BS" frobnicate >/dev/null 2>&1
exit_is $? 2 "an unknown action is a usage error"
finish
