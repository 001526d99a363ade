#!/bin/bash
# No code that parses network input runs as root (DESIGN.md §9): a
# broker started as root splits into a privileged parent, which keeps
# the pid file and no network socket, and a child that holds the UDP
# socket as the service user cilknow with no capability left.  CilkPing,
# CilkPs and CilkPred work against it; SIGHUP to the parent with a
# rotated cluster key makes the child take the new key, and with a
# broken key file keeps the old keys; SIGTERM to the parent ends both;
# the child's death ends the parent non-zero, the parent's the child.
# Started by an ordinary user, the broker works just the same.
# ports: 17950-17959
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
B=127.0.0.1:17950
BN=127.0.0.1:17952
SU=cilknow

ping_b() {	# ping_b [CilkPing options] : one ping of the broker at $B
	"$BIN/CilkPing" -c "$C" -n 1 -W 0.5 "$@" "$B"
}
# The children of pid $1 (by parent pid: never by name).
children() { ps -o pid= --ppid "$1" | tr -d ' '; }
# A line of /proc/PID/status, blanks squeezed: "Uid" gives "0 0 0 0".
field() { awk -v k="$2:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }
# Start time: a pid we recorded is only ours while it matches.
started() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }
alive() { [ -e "/proc/$1" ] && [ "$(field "$1" State | cut -c1)" != Z ]; }
gone_within() {	# gone_within SECONDS PID
	local end=$(( $(date +%s) + $1 ))
	while alive "$2"; do
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.05
	done
}
# Children we found are ended at exit too, if they are still ours.
ENGINES=
engine() {	# engine PARENT : sets CHILD to its one child, recorded
	local k
	CHILD=
	for _ in $(seq 100); do
		k=$(children "$1")
		[ -n "$k" ] && [ "$(echo "$k" | wc -w)" -eq 1 ] && break
		sleep 0.05
	done
	CHILD=$k
	[ -n "$CHILD" ] && ENGINES="$ENGINES $CHILD:$(started "$CHILD")"
}
end_engines() {
	local e p
	for e in $ENGINES; do
		p=${e%%:*}
		[ "$(started "$p")" = "${e#*:}" ] && kill -KILL "$p" 2>/dev/null
	done
	cleanup
}
trap end_engines EXIT
sock_inodes() { ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'; }
udp_inodes() { awk 'NR > 1 { print $10 }' /proc/net/udp /proc/net/udp6; }
has_udp() { sock_inodes "$1" | grep -qxF -f <(udp_inodes); }

# ---- started by an ordinary user: nothing to drop, the same split ----
# As root, the user is nobody (setpriv); otherwise whoever runs this.
nonroot() {
	local N=$T/nb RUN=() u parent child
	mkdir -p "$N/users"
	"$BIN/CilkKey" generate-cluster "$T/nb.key" >/dev/null
	cp "$T/nb.key" "$N/cluster.key"
	cat >"$N/c.conf" <<EOC
cluster_key = $N/cluster.key
user_keys = $N/users
state_dir = $N/state
run_dir = $N/run
EOC
	chmod 644 "$N/c.conf"
	u=$(id -un)
	if [ "$(id -u)" -eq 0 ]; then
		chown -R nobody:nogroup "$N"
		RUN=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		u=nobody
	fi
	chmod 600 "$N/cluster.key"
	start nb "${RUN[@]}" "$SBIN/CilkJobBroker" -f -c "$N/c.conf" \
	    -o listen=$BN
	parent=$LAST_PID
	nb_ping() { "$BIN/CilkPing" -c "$C" -o cluster_key="$T/$1" -n 1 \
	    -W 0.5 "$BN"; }
	wait_for 10 nb_ping nb.key
	ok $? "as $u: the broker answers CilkPing"
	engine "$parent"
	child=$CHILD
	[ -n "$child" ] && [ "$(field "$child" Uid | awk '{ print $1 }')" = \
	    "$(id -u "$u")" ] && ! has_udp "$parent" && has_udp "$child"
	ok $? "as $u: the same split, both $u's; the child holds the socket"
	"$BIN/CilkKey" -F generate-cluster "$T/nb2.key" >/dev/null
	cp "$T/nb2.key" "$N/cluster.key.new"
	[ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$N/cluster.key.new"
	mv "$N/cluster.key.new" "$N/cluster.key"
	kill -HUP "$parent"
	wait_for 10 nb_ping nb2.key
	ok $? "as $u: SIGHUP to the parent, the new key is taken"
	kill -TERM "$parent"
	wait "$parent"
	exit_is $? 0 "as $u: SIGTERM to the parent: a clean exit"
	gone_within 5 "$child"
	ok $? "as $u: and the child is gone"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "ok $((TAP_N += 1)) # SKIP not root: no service user to drop to"
	nonroot
	finish
	exit
fi
if ! id "$SU" >/dev/null 2>&1; then
	echo "ok $((TAP_N += 1)) # SKIP no user $SU (tests/install-deps.sh makes it as root)"
	finish
	exit 0
fi
SUID=$(id -u "$SU")
SGID=$(id -g "$SU")

# ---- -n: the service user is looked up, and refused when unusable ----
"$SBIN/CilkJobBroker" -n -c "$C" >"$T/n.out" 2>&1
exit_is $? 0 "-n as root: configuration, keys and service user OK"
"$SBIN/CilkJobBroker" -n -c "$C" -o service_user=nosuchuser-cilknow \
    >"$T/n2.out" 2>&1
exit_is $? 1 "-n with a service user that does not exist fails closed"
contains "$T/n2.out" "useradd --system --user-group .* nosuchuser-cilknow" \
    "and says how to make it"
"$SBIN/CilkJobBroker" -n -c "$C" -o service_user=root >"$T/n3.out" 2>&1
exit_is $? 1 "-n with service_user = root is refused"

# ---- the split ----
start broker "$SBIN/CilkJobBroker" -f -c "$C" -o listen=$B
PARENT=$LAST_PID
wait_for 10 ping_b
ok $? "the broker answers CilkPing"
engine "$PARENT"
[ -n "$CHILD" ]
ok $? "the parent ($PARENT) has one child ($CHILD)"
[ "$(field "$CHILD" Uid)" = "$SUID $SUID $SUID $SUID" ] &&
    [ "$(field "$CHILD" Gid)" = "$SGID $SGID $SGID $SGID" ] &&
    [ -z "$(field "$CHILD" Groups)" ]
ok $? "the child's real, effective, saved and file ids are $SU's, no supplementary group"
[ "$(field "$CHILD" CapEff)" = 0000000000000000 ] &&
    [ "$(field "$CHILD" CapPrm)" = 0000000000000000 ] &&
    [ "$(field "$CHILD" CapAmb)" = 0000000000000000 ] &&
    [ "$(field "$CHILD" CapBnd)" = 0000000000000000 ] &&
    [ "$(field "$CHILD" NoNewPrivs)" = 1 ]
ok $? "no capability is left to it, an empty bounding set, and no new privileges"
ss -H -lunp "sport = :${B##*:}" >"$T/ss.out" 2>&1
grep -q "pid=$CHILD," "$T/ss.out" && ! grep -q "pid=$PARENT," "$T/ss.out"
ok $? "the child holds the UDP socket (ss -lunp)"
sed 's/^/#   | /' "$T/ss.out"
! has_udp "$PARENT" && has_udp "$CHILD"
ok $? "the parent has no UDP socket at all"
[ "$(field "$PARENT" Uid)" = "0 0 0 0" ] &&
    tr '\0' ' ' <"/proc/$CHILD/cmdline" | grep -q '^CilkJobBroker: engine '

ok $? "the parent stays root; ps shows the child as 'CilkJobBroker: engine'"
[ "$(cat "$T/run/CilkJobBroker.pid")" = "$PARENT" ]
ok $? "the pid file names the parent"
[ "$(stat -c '%U %a' "$T/state/broker")" = "$SU 750" ] &&
    [ "$(stat -c '%U' "$T/state")" = root ]
ok $? "state_dir/broker is $SU's, mode 0750; state_dir stays root's"
# The child's view of the files (CilkJobBroker(8), Privileges): a
# read-only tmpfs root in a mount namespace of its own, with its folder.
[ "$(readlink /proc/"$CHILD"/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ] &&
    grep -Eq '^[0-9]+ [0-9]+ [0-9:]+ / / ro,.* - tmpfs ' /proc/"$CHILD"/mountinfo &&
    ! grep -q 'engine\.view' /proc/self/mountinfo
ok $? "the child's root is a read-only tmpfs of its own mount namespace, not in ours"
R=/proc/$CHILD/root
[ -d "$R$T/state/broker" ] && [ ! -e "$R$C" ] && [ ! -e "$R$T/cluster.key" ] &&
    [ ! -e "$R/usr" ] && [ ! -e "$R/home" ] && [ ! -e "$R/etc" ] &&
    [ ! -e "$R/run" ]
ok $? "it sees its folder, not the configuration, the key files, /usr, /etc, /run or the homes" ||
    ls -la "$R" "$R$T" 2>&1 | sed 's/^/#   | /'

"$BIN/CilkPs" -c "$C" -b "$B" >"$T/ps.out" 2>&1
exit_is $? 0 "CilkPs against it"
"$BIN/CilkPred" -c "$C" -b "$B" -o user=ann user=ann global add \
    idletime=123 >"$T/pred.out" 2>&1
exit_is $? 0 "CilkPred as ann adds a predicate (signed, checked by $SU)"
grep -q 'user=ann global add idletime=123' "$T/state/broker/predicates" &&
    [ "$(stat -c %U "$T/state/broker/predicates")" = "$SU" ]
ok $? "the unprivileged child stored it in state_dir/broker"

# ---- SIGHUP: a rotated cluster key, then a broken one ----
cp -p "$T/cluster.key" "$T/old.key"
"$BIN/CilkKey" rotate "$T/cluster.key" >"$T/rot.out" 2>&1
ok $? "CilkKey rotate"
ping_b >/dev/null 2>&1
exit_is $? 3 "before SIGHUP the new current key gets no answer"
kill -HUP "$PARENT"
wait_for 10 ping_b
ok $? "SIGHUP to the parent: the new key is accepted"
ping_b -o cluster_key="$T/old.key" >/dev/null 2>&1
ok $? "and the previous one still is"
contains "$T/broker.out" "reloaded the configuration and keys" \
    "the child logs the reload"
cp -p "$T/cluster.key" "$T/good.key"
printf 'cluster-key 00000000 garbage\n' >"$T/cluster.key"
kill -HUP "$PARENT"
broken() { grep -q "reload: .*cluster.key.*keeping the old keys" "$T/broker.out"; }
wait_for 10 broken
ok $? "SIGHUP with a broken key file: the parent refuses it"
ping_b -o cluster_key="$T/good.key" >/dev/null 2>&1 && alive "$CHILD"
ok $? "the same child keeps the old keys and answers"
cp -p "$T/good.key" "$T/cluster.key"
kill -HUP "$CHILD"
hint() { grep -q "SIGHUP: send it to the privileged process, pid $PARENT" "$T/broker.out"; }
wait_for 5 hint
ok $? "SIGHUP to the child itself is pointed at the parent"

# ---- the ends ----
kill -TERM "$PARENT"
wait "$PARENT"
exit_is $? 0 "SIGTERM to the parent: it exits 0"
gone_within 5 "$CHILD"
ok $? "the child is gone too"
[ ! -e "$T/run/CilkJobBroker.pid" ]
ok $? "the parent removed its pid file"

start broker2 "$SBIN/CilkJobBroker" -f -c "$C" -o listen=$B
PARENT=$LAST_PID
wait_for 10 ping_b
engine "$PARENT"
kill -KILL "$CHILD"
wait "$PARENT"
rc=$?
[ "$rc" -ne 0 ]
ok $? "SIGKILL to the child: the parent ends too, non-zero (exit $rc)"
contains "$T/broker2.out" "was killed by signal 9" "and logs why"

start broker3 "$SBIN/CilkJobBroker" -f -c "$C" -o listen=$B
PARENT=$LAST_PID
wait_for 10 ping_b
engine "$PARENT"
kill -KILL "$PARENT"
wait "$PARENT" 2>/dev/null
gone_within 5 "$CHILD"
ok $? "SIGKILL to the parent: the child ends by itself"

nonroot
finish
