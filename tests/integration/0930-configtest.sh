#!/bin/bash
# CilkJobBroker -n and CilkNodeManager -n: a good configuration passes;
# each broken one fails with a line that names the file and says what
# is wrong and what to do: missing, unreadable, malformed or misplaced
# keys, key files and folders that others could replace, users' public
# keys that are broken, and configuration errors.  Unsafe permissions
# also stop a daemon from starting.
# ports: 17840-17849
. "$(dirname "$0")/lib.sh"
keys_and_conf "$T" || { ok 1 "keys"; finish; exit 1; }
C=$T/cilknow.conf
cat >>"$C" <<EOC
state_dir = $T/state
run_dir = $T/run
listen = 127.0.0.1:17840
broker = 127.0.0.1:17840
EOC
NM_ARGS="-o listen=127.0.0.1:17841"
export CILKNOW_SBIN=$SBIN

# both_fail DESCRIPTION REGEX : -n of both daemons exits 1 and says REGEX
both_fail() {
	for d in CilkJobBroker CilkNodeManager; do
		args=; [ $d = CilkNodeManager ] && args=$NM_ARGS
		# shellcheck disable=SC2086
		"$SBIN/$d" -n -c "$C" $args >"$T/n.out" 2>&1
		exit_is $? 1 "$d -n: $1"
		contains "$T/n.out" "$2" "$d -n says: $2"
	done
}
node_fails() {
	"$SBIN/CilkNodeManager" -n -c "$C" $NM_ARGS >"$T/n.out" 2>&1
	exit_is $? 1 "CilkNodeManager -n: $1"
	contains "$T/n.out" "$2" "it says: $2"
}

for d in CilkJobBroker CilkNodeManager; do
	args=; [ $d = CilkNodeManager ] && args=$NM_ARGS
	"$SBIN/$d" -n -c "$C" $args >"$T/ok.out" 2>&1
	exit_is $? 0 "$d -n with a good configuration"
	contains "$T/ok.out" "configuration and keys OK" "and says so"
done

# The cluster key.
mv "$T/cluster.key" "$T/keep.key"
both_fail "missing cluster key" "cluster\.key: No such file or directory"
echo "cluster-key zz not-base64" >"$T/cluster.key"; chmod 600 "$T/cluster.key"
both_fail "malformed cluster key" "cluster\.key:1: "
cp "$T/cluster.pub" "$T/cluster.key"; chmod 600 "$T/cluster.key"
both_fail "a public key where the secret one belongs" \
    "cluster\.key: holds a cluster-pub, not a cluster-key"
cp "$T/keep.key" "$T/cluster.key"; chmod 644 "$T/cluster.key"
both_fail "cluster key readable by others" \
    "cluster\.key: secret key file is accessible by group or others \(mode 0644\); chmod 600 it"
chmod 600 "$T/cluster.key"
if [ "$(id -u)" -eq 0 ]; then
	chown nobody "$T/cluster.key"
	both_fail "cluster key owned by another user" \
	    "cluster\.key: the cluster key is owned by uid [0-9]+, neither root nor us .*chown root it"
	chown root "$T/cluster.key"
else
	for _ in 1 2 3 4; do
		echo "ok $((TAP_N += 1)) # SKIP a key owned by another user needs root to make"
	done
fi
chmod 777 "$T"
both_fail "a folder above the key that anyone can write" \
    "$T: a folder above the cluster key is writable by group or others \(mode 0777\).*chmod go-w it"
chmod 700 "$T"

# Users' public keys.
chmod 775 "$T/users"
both_fail "user_keys folder writable by its group" \
    "users: the user_keys folder is writable by group or others \(mode 0775\)"
chmod 755 "$T/users"
chmod 666 "$T/users/ann.pub"
both_fail "a public key anyone can write" \
    "ann\.pub: the public key is writable by group or others \(mode 0666\)"
chmod 644 "$T/users/ann.pub"
echo junk >"$T/users/bob.pub"
both_fail "an unreadable public key" \
    "bob\.pub:1: unknown key type 'junk'; bob's jobs will be refused"
"$BIN/CilkKey" public "$T/ann.id" >"$T/users/bob.pub"
both_fail "a public key filed under another user's name" \
    "bob\.pub: holds the key of user 'ann', not of 'bob'"
cp "$T/ann.id" "$T/users/bob.pub"; chmod 600 "$T/users/bob.pub"
both_fail "a secret key among the public ones" \
    "bob\.pub: holds a user-key, not a user-pub"
rm -f "$T/users/bob.pub"
mv "$T/users" "$T/users.away"
both_fail "no user_keys folder" "users: user_keys folder: No such file or directory"
mv "$T/users.away" "$T/users"

# The configuration itself.
chmod 664 "$C"
both_fail "configuration writable by its group" \
    "cilknow\.conf: writable by group or others; refusing it \(chmod go-w\)"
chmod 644 "$C"
echo "quantum = soon" >>"$C"
both_fail "a bad value" "cilknow\.conf:[0-9]+: "
sed -i '$d' "$C"
# Unsafe is fatal at startup too, not only under -n.
chmod 777 "$T/users"
timeout 10 "$SBIN/CilkJobBroker" -f -c "$C" >"$T/start.out" 2>&1
exit_is $? 1 "a broker with a world-writable user_keys folder does not start"
contains "$T/start.out" "unsafe: .*users: the user_keys folder is writable" \
    "and says why"
chmod 755 "$T/users"
# A guest's nice level: 0 to 19, never before the owner.
for v in 20 -1; do
	save=$NM_ARGS; NM_ARGS="$NM_ARGS -o worker_nice=$v"
	node_fails "worker_nice = $v" \
	    "worker_nice = $v: a nice level from 0 to 19"
	NM_ARGS=$save
done
"$SBIN/CilkNodeManager" -n -c "$C" $NM_ARGS -o worker_nice=0 >"$T/n.out" 2>&1
exit_is $? 0 "CilkNodeManager -n with worker_nice = 0"
NM_ARGS="$NM_ARGS -o broker=999.1.1.1"
node_fails "a broker address that is none" \
    "broker 999\.1\.1\.1: bad or unknown address"
finish
