#!/bin/bash
# Reload that tells the truth, through the systemd units as installed:
# each daemon runs by its unit's ExecStart line, with stderr a file that
# JOURNAL_STREAM names as systemd would, and is reloaded by the unit's
# ExecReload lines run in turn as systemd runs them ($MAINPID filled in,
# the first failure ends the reload).  Lines carry the journal's "<N>"
# priorities and no program name; a broken configuration fails the
# reload with the error at priority 3 and leaves the daemon untouched;
# a bare SIGHUP with a broken configuration or an unsafe key folder is
# refused and the old keys stay in use; a good one brings in the new
# cluster key, and each changed key that needs a restart is a warning
# ("<4>") naming it.  The status sent to systemd says whether a reload
# failed.  PID 1 is not systemd here, so the units are not
# run by systemd itself (0940 verifies them).
# ports: 18100-18119
# chain: make install (conf-gen) writes into the shared build folder: one at a time
. "$(dirname "$0")/lib.sh"
: "${CILKNOW_TOP:?}"
R=$T/root
B=127.0.0.1:18100
N=127.0.0.1:18101
make -s -C "$CILKNOW_TOP" -o all BUILD="$CILKNOW_BUILD" PREFIX="$R/usr" \
    SYSCONFDIR="$R/etc" RUNSTATEDIR="$R/run" LOCALSTATEDIR="$R/var" \
    install >"$T/install.out" 2>&1
exit_is $? 0 "install into $R"
U=$R/usr/share/doc/cilknow/examples/systemd
K=$R/etc/cilknow
C=$K/cilknow.conf
mkdir -p "$K/users" "$R/run" "$R/var/lib"
for k in a b; do
	mkdir -p "$T/$k"
	"$R/usr/bin/CilkKey" generate-cluster "$T/$k/cluster.key" >/dev/null
	cat >"$T/$k.conf" <<EOC
cluster_key = $T/$k/cluster.key
cluster_pub = $T/$k/cluster.pub
user_keys = $K/users
timeout = 1
EOC
done
echo idletime=1000000 >"$T/sensors"
# conf KEY CHANGES... : the configuration with cluster key KEY (a or b)
conf() {
	k=$1; shift
	cat >"$C" <<EOC
broker = $B
cluster_key = $T/$k/cluster.key
cluster_pub = $T/$k/cluster.pub
user_keys = $K/users
state_dir = $R/var/lib/cilknow
run_dir = $R/run/cilknow
register_interval = 1
sensors = file:$T/sensors
timeout = 1
munge_socket = $T/no-munged/socket
EOC
	for kv in "$@"; do echo "$kv" >>"$C"; done
	chmod 644 "$C"
}

# What systemd gives a service: JOURNAL_STREAM, the stream's device and
# inode, for a file that stands in for the journal.
stream() { stat -c %d:%i "$1"; }
# unit_run UNIT KEY PID LOG : the unit's KEY= lines in turn, $MAINPID
# made PID, output to LOG as to the journal; the first failure is the
# status.  (Their words are plain: no quoting to undo.)
unit_run() {
	local unit=$1 key=$2 pid=$3 log=$4 line rc=0
	: >"$log"
	while IFS= read -r line; do
		line=${line//\$MAINPID/$pid}
		read -r -a argv <<<"$line"
		JOURNAL_STREAM=$(stream "$log") "${argv[@]}" >>"$log" 2>&1
		rc=$?
		[ $rc -eq 0 ] || break
	done < <(sed -n "s/^$key=//p" "$U/$unit.service")
	return $rc
}
pings() { "$R/usr/bin/CilkPing" -c "$T/$1.conf" -n 1 -W 0.5 "$2"; }
lines() { grep -c -- "$2" "$1"; }
# lines_are FILE REGEX OP N : counted anew at every poll of wait_for
lines_are() { test "$(lines "$1" "$2")" "$3" "$4"; }

# exercise UNIT PROG ADDR RESTART-KEY NEW-VALUE [ARGS...] : ARGS go to
# ExecStart only, as an administrator's drop-in would add them
exercise() {
	local u=$1 p=$2 a=$3 rk=$4 rv=$5 log=$T/$1.log pid
	shift 5
	conf a
	: >"$log"
	# systemd's notify socket too, for what the status says.
	start "$u-notify" "$TOOLS/notify_listen" "$T/$u.sock" "$T/$u.notify" 120
	wait_for 5 test -S "$T/$u.sock"
	read -r -a argv <<<"$(sed -n 's/^ExecStart=//p' "$U/$u.service")"
	NOTIFY_SOCKET=$T/$u.sock JOURNAL_STREAM=$(stream "$log") \
	    "${argv[@]}" "$@" >>"$log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	wait_for 10 pings a "$a"
	ok $? "$u: $p runs by its ExecStart and answers"
	contains "$log" "^<6>listening on $a\$" \
	    "$u: on the journal's stream, information is <6>, no program name"
	! grep -Eq "^(<[0-9]>)?$p(: |\[)" "$log"
	ok $? "$u: no line repeats the program name"
	! grep -Evq '^<[0-7]>' "$log"
	ok $? "$u: every line has its priority"

	# A broken configuration (with a new key in it): reload fails.
	conf b "quantum = soon"
	before=$(lines "$log" reload)
	unit_run "$u" ExecReload "$pid" "$T/$u.reload"
	rc=$?
	[ $rc -ne 0 ]
	ok $? "$u: ExecReload with a broken configuration fails (exit $rc)"
	contains "$T/$u.reload" "^<3>.*cilknow\.conf:[0-9]+: .*quantum" \
	    "$u: and says why, at error priority"
	kill -0 "$pid" && pings a "$a" >/dev/null 2>&1 &&
	    [ "$(lines "$log" reload)" -eq "$before" ]
	ok $? "$u: the daemon was not signalled and runs on with its old key"

	# A bare SIGHUP (kill -HUP, or a reload that skips the check).
	kill -HUP "$pid"
	wait_for 10 grep -q "^<3>reload: the configuration has errors .*keeping the old" "$log"
	ok $? "$u: SIGHUP with a broken configuration is refused, an error"
	contains "$log" "^<3>reload: .*cilknow\.conf:[0-9]+: .*quantum" \
	    "$u: the error itself is logged, not lost on stderr"
	wait_for 10 grep -q '^READY=1|STATUS=running; reload failed' "$T/$u.notify"
	ok $? "$u: and the status systemd shows says the reload failed"
	pings a "$a" >/dev/null 2>&1 && ! pings b "$a" >/dev/null 2>&1
	ok $? "$u: the old configuration and key stay in use"

	# An unsafe user_keys folder: refused as it would be at start.
	conf b
	chmod 777 "$K/users"
	kill -HUP "$pid"
	wait_for 10 grep -q "^<3>reload: unsafe key files .*keeping the old" "$log"
	ok $? "$u: SIGHUP with a user_keys folder anyone can write is refused"
	contains "$log" "^<3>unsafe: .*users: the user_keys folder is writable" \
	    "$u: saying which"
	pings a "$a" >/dev/null 2>&1
	ok $? "$u: the old key stays in use"
	chmod 755 "$K/users"

	# A good one: the new key, and a key that needs a restart changed.
	conf b "$rk = $rv" "admins = root,ann" "user_auth = user,munge"
	unit_run "$u" ExecReload "$pid" "$T/$u.reload"
	exit_is $? 0 "$u: ExecReload with a good configuration"
	wait_for 10 pings b "$a"
	ok $? "$u: the new cluster key is in use"
	# munge allowed by the reload, with no munged when the engine's view
	# was made: said, with what to do (a reload cannot show it to him).
	contains "$log" "^<4>reload: user_auth allows munge, but munged's socket $T/no-munged/socket is not in sight: start munged, then restart this daemon" \
	    "$u: munge allowed with munged out of the engine's sight: a warning"
	contains "$log" "^<4>reload: $rk changed from '[^']*' to '$rv'; it needs a restart to take effect\$" \
	    "$u: the changed $rk is a warning (<4>) that it needs a restart"
	! grep -q "reload: admins changed" "$log" &&
	    ! grep -q "reload: cluster_key changed" "$log" &&
	    ! grep -q "reload: user_auth changed" "$log"
	ok $? "$u: keys a reload applies are not among them"
	# Still pending on the next reload; gone when the change is undone.
	unit_run "$u" ExecReload "$pid" "$T/$u.reload"
	wait_for 10 lines_are "$log" "^<4>reload: $rk changed" -eq 2
	ok $? "$u: a second reload warns again: the restart is still due"
	# (Its warnings come before the first new "reloaded" line.)
	conf b "admins = root,ann"
	before=$(lines "$log" "^<6>reloaded the configuration")
	unit_run "$u" ExecReload "$pid" "$T/$u.reload"
	wait_for 10 lines_are "$log" "^<6>reloaded the configuration" \
	    -gt "$before"
	[ "$(lines "$log" "^<4>reload: $rk changed")" -eq 2 ]
	ok $? "$u: none once $rk is back to the value it started with"
	stop "$pid"
	# A privileged parent and its engine: each event is said once.
	test "$(lines "$log" "^<6>reloaded the configuration")" -eq 3
	ok $? "$u: three good reloads, three lines saying so"
	test "$(lines "$log" "^<6>.*: shutting down")" -eq 1
	ok $? "$u: one stop, one line saying so"
}

exercise cilknow-broker CilkJobBroker "$B" register_interval 2
exercise cilknow-nodemanager CilkNodeManager "$N" stop_grace 5 \
    -o "listen=$N"

# A live check under systemd needs systemd as PID 1.
if [ -d /run/systemd/system ]; then
	echo "ok $((TAP_N + 1)) # SKIP the journal itself is not read here; the protocol is checked above"
else
	echo "ok $((TAP_N + 1)) # SKIP PID 1 is not systemd (no /run/systemd/system): systemd-run cannot start the units"
fi
TAP_N=$((TAP_N + 1))
finish
