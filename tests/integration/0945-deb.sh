#!/bin/bash
# The Debian package on this machine: build two versions from the tree,
# dpkg -i the first (a fresh cluster key, mode 0600; folders), upgrade
# to the second (keys, configuration and state kept), dpkg -r (keys
# kept), dpkg -P (all gone), and lintian finds nothing.  Only as root
# with dpkg, and never over a cilknow this machine already has.
. "$(dirname "$0")/lib.sh"
: "${CILKNOW_TOP:?}"
skip() { echo "ok 1 # SKIP $1"; finish; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root"
command -v dpkg-deb >/dev/null || skip "no dpkg"
dpkg -s cilknow >/dev/null 2>&1 && skip "cilknow is installed here already"
[ -e /etc/cilknow ] || [ -e /var/lib/cilknow ] &&
    skip "/etc/cilknow or /var/lib/cilknow exists already (purge would remove it)"
trap 'dpkg -P cilknow >/dev/null 2>&1; cleanup' EXIT
build() {	# build VERSION : the .deb's path
	sh "$CILKNOW_TOP/conf/debian/build-deb.sh" "$CILKNOW_BUILD" "$1" "$T"
}
D1=$(build 0.1.0 2>"$T/b1.err")
ok $? "make deb (0.1.0)"
D2=$(build 0.1.1 2>"$T/b2.err")
ok $? "make deb (0.1.1)"

if command -v lintian >/dev/null; then
	timeout 120 lintian "$D2" 2>&1 | grep -v 'root privileges' >"$T/lint"
	test ! -s "$T/lint"
	ok $? "lintian has nothing to say"
	sed 's/^/#   | /' "$T/lint"
else
	echo "ok $((TAP_N += 1)) # SKIP lintian is missing (make check-deps)"
fi

dpkg -i "$D1" >"$T/i1.out" 2>&1
exit_is $? 0 "dpkg -i cilknow 0.1.0"
test -x /usr/sbin/CilkNodeManager && test -x /usr/bin/CilkNodes
ok $? "daemons in /usr/sbin, utilities in /usr/bin"
[ "$(stat -c '%a %U' /etc/cilknow/cluster.key)" = "600 root" ]
ok $? "a fresh cluster key, root's, mode 0600"
test -d /var/lib/cilknow && test -d /run/cilknow && test -d /etc/cilknow/users
ok $? "/var/lib/cilknow, /run/cilknow and /etc/cilknow/users exist"
test -f /lib/systemd/system/cilknow-broker.service &&
    test -x /etc/init.d/cilknow-nodemanager
ok $? "units and init scripts in place"
/usr/sbin/CilkJobBroker -n >"$T/n.out" 2>&1
exit_is $? 0 "the installed broker accepts the installed configuration"

key=$(md5sum </etc/cilknow/cluster.key)
echo "# ours" >>/etc/cilknow/cilknow.conf
/usr/bin/CilkKey generate-user -u ann "$T/ann.id" >/dev/null
/usr/bin/CilkKey public "$T/ann.id" >/etc/cilknow/users/ann.pub
echo "always add idletime=60" >/var/lib/cilknow/predicates-test
dpkg -i "$D2" >"$T/i2.out" 2>&1
exit_is $? 0 "upgrade to 0.1.1"
[ "$(dpkg-query -W -f='${Version}' cilknow)" = 0.1.1 ]
ok $? "0.1.1 is installed"
[ "$(md5sum </etc/cilknow/cluster.key)" = "$key" ]
ok $? "the upgrade kept the cluster key"
grep -q '^# ours$' /etc/cilknow/cilknow.conf && test -f /etc/cilknow/users/ann.pub
ok $? "and the configuration and users' keys"
test -f /var/lib/cilknow/predicates-test
ok $? "and the state (predicates)"

dpkg -r cilknow >"$T/r.out" 2>&1
exit_is $? 0 "dpkg -r"
test ! -e /usr/sbin/CilkJobBroker && test -f /etc/cilknow/cluster.key
ok $? "the programs are gone, the keys stay"
dpkg -P cilknow >"$T/p.out" 2>&1
exit_is $? 0 "dpkg -P"
test ! -e /etc/cilknow && test ! -e /var/lib/cilknow && test ! -e /run/cilknow &&
    test ! -e /etc/init.d/cilknow-broker && test ! -e /etc/default/cilknow-broker
ok $? "purge removes keys, configuration, state and conffiles"
finish
