#!/bin/bash
# The Debian packages: build them from the tree and a later version
# (cilknow, and cilknow-x11 with xCilkNodeInfo alone, so that cilknow
# pulls no X11 or cairo), dpkg -i
# the first (a fresh cluster key, mode 0600; folders), upgrade to the
# second (keys, configuration and state kept; the programs report the
# package's version), dpkg -r (keys kept; the daemons stopped and every
# worker ended, setsid()ed ones included), dpkg -P (all gone, enable
# links too), and lintian finds nothing.  Only as root with dpkg and
# unshare.  dpkg runs in a private mount namespace, over overlays of
# /etc, /usr, /var and /run whose changes stay in the test's folder:
# this machine's own root is never touched.
# (In a chroot whose / is no mount point unshare cannot make the
# namespace private: then the test skips.)
# ports: 18300-18309
# chain: builds packages from the shared build folder and a copy (CPU)
if [ -z "${CILKNOW_DEB_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
    unshare --mount --propagation private true 2>/dev/null; then
	exec unshare --mount --propagation private env CILKNOW_DEB_NS=1 \
	    bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
: "${CILKNOW_TOP:?}"
skip() { echo "ok 1 # SKIP $1"; finish; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "not root"
[ -n "${CILKNOW_DEB_NS:-}" ] ||
    skip "no private mount namespace here (no unshare, or / is no mount point, as in a chroot)"
command -v dpkg-deb >/dev/null || skip "no dpkg"
dpkg -s cilknow >/dev/null 2>&1 && skip "cilknow is installed here already"
[ -e /etc/cilknow ] || [ -e /var/lib/cilknow ] &&
    skip "/etc/cilknow or /var/lib/cilknow exists already"
for d in etc usr var run; do
	mkdir -p "$T/ov/$d/up" "$T/ov/$d/work"
	mount -t overlay "cilknow-$d" -o "lowerdir=/$d,upperdir=$T/ov/$d/up,workdir=$T/ov/$d/work" "/$d" ||
	    skip "cannot mount an overlay on /$d"
done
# A real system's maintainer scripts start and stop services; a
# container's policy-rc.d denies every action, and in a chroot with no
# /sbin/init (a fresh minbase) invoke-rc.d blocks them all: the
# overlay's policy-rc.d allows them, as an administrator's would.
printf '#!/bin/sh\nexit 0\n' >/usr/sbin/policy-rc.d &&
    chmod 755 /usr/sbin/policy-rc.d || skip "cannot write policy-rc.d"
# man-db's trigger rebuilt this machine's whole index at each dpkg call
# (about 6 s of CPU a call here); where the man pages go is checked
# from the packages.
rm -f /var/lib/man-db/auto-update
BADDR=127.0.0.1:18300
NADDR=127.0.0.1:18301
CG=
DPIDS=
# Ours by pid: the daemons' pid files, what lpad_driver started, and
# the workers' setsid() children (their arguments are this test's).
finally() {
	for p in $DPIDS $(cat /run/cilknow/*.pid 2>/dev/null) \
	    $(sed -n 's/^lpad //p; s/^worker //p' "$T"/d?.sp 2>/dev/null) \
	    $(pgrep -f '^sleep (1945|1000)[12]$'); do
		kill -KILL "$p" 2>/dev/null
	done
	dpkg -P cilknow-x11 cilknow >/dev/null 2>&1
	[ -n "$CG" ] && rmdir "$CG"/w-* "$CG" 2>/dev/null
	umount -l /run /var /usr /etc 2>/dev/null
	cleanup
}
trap finally EXIT
build() {	# build BUILD : the .deb's path (xz -1: the sanitized programs
	# took 17 s at dpkg-deb's level 6)
	CILKNOW_DEB_XZ=1 sh "$CILKNOW_TOP/conf/debian/build-deb.sh" "$1" "$T"
}
version() { "$1" -V | sed 's/.* //'; }
# The plain build where make check has one (what users install, a fifth
# of the sanitized programs' size for dpkg-deb and lintian), else ours.
PKG=${CILKNOW_PLAIN_BUILD:-$CILKNOW_BUILD}
V1=$(version "$PKG/bin/CilkKey")
D1=$(build "$PKG" 2>"$T/b1.err")
ok $? "make deb ($V1, the programs' version)"
# The same programs built as a later version: the objects are copied,
# only what prints the version is compiled again.
V2=$V1.1
mkdir -p "$T/b2"
cp -a "$PKG/obj" "$PKG/lib" "$T/b2/"
# The dependency files name their objects under the build they came
# from: renamed, a header changed since that build recompiles here too
# (else objects of two layouts of one struct were linked together).
find "$T/b2/obj" -name '*.d' -exec sed -i \
    "s|^[^ :]*/obj/\([^ :]*\.o\):|$T/b2/obj/\1:|" {} +
S=0
ldd "$PKG/bin/CilkKey" | grep -q libasan && S=1
make -s -C "$CILKNOW_TOP" BUILD="$T/b2" SANITIZE=$S VERSION="$V2" all \
    conf-gen >"$T/b2.out" 2>&1 && D2=$(build "$T/b2" 2>"$T/b2.err")
ok $? "make deb ($V2)"
[ "$(dpkg-deb -f "$D2" Version)" = "$V2" ]
ok $? "the package built from programs of $V2 is $V2"

# xCilkNodeInfo in cilknow-x11, beside: servers pull no X11 or cairo.
X1=${D1%/*}/cilknow-x11_${D1##*/cilknow_}
X2=${D2%/*}/cilknow-x11_${D2##*/cilknow_}
test -f "$X1" && test -f "$X2"
ok $? "cilknow-x11 is built beside it (${X1##*/})"
! dpkg-deb -f "$D2" Depends | grep -Eq 'libx11|libcairo|libfontconfig' &&
    ! dpkg-deb -c "$D2" | grep -q xCilkNodeInfo
ok $? "cilknow: no X11, cairo or fontconfig in Depends, no xCilkNodeInfo"
dpkg-deb -f "$D2" Depends | sed 's/^/#   cilknow Depends: /'
dpkg-deb -c "$X2" | awk '{ print $6 }' | grep -v '/$' >"$T/x11.files"
grep -qx ./usr/bin/xCilkNodeInfo "$T/x11.files" &&
    grep -qx ./usr/share/man/man1/xCilkNodeInfo.1.gz "$T/x11.files" &&
    ! grep -Ev '^\./usr/(bin/xCilkNodeInfo|share/man/man1/xCilkNodeInfo\.1\.gz|share/doc/cilknow-x11/(copyright|changelog\.gz))$' "$T/x11.files"
ok $? "cilknow-x11 holds xCilkNodeInfo, its man page and its docs only"
dpkg-deb -f "$X2" Depends | grep -q "^cilknow (= $V2), " &&
    dpkg-deb -f "$X2" Depends | grep -q 'libx11-6' &&
    dpkg-deb -f "$X2" Depends | grep -q 'libcairo2'
ok $? "cilknow-x11 depends on cilknow $V2 exactly, on libx11-6 and libcairo2"

if command -v lintian >/dev/null; then
	timeout 120 lintian "$D2" 2>&1 | grep -v 'root privileges' >"$T/lint"
	test ! -s "$T/lint"
	ok $? "lintian has nothing to say"
	sed 's/^/#   | /' "$T/lint"
	timeout 120 lintian "$X2" 2>&1 | grep -v 'root privileges' >"$T/xlint"
	test ! -s "$T/xlint"
	ok $? "nor of cilknow-x11"
	sed 's/^/#   | /' "$T/xlint"
else
	echo "ok $((TAP_N += 1)) # SKIP lintian is missing (make check-deps)"
fi

dpkg -i "$D1" >"$T/i1.out" 2>&1
exit_is $? 0 "dpkg -i cilknow $V1"
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
test ! -e /usr/bin/xCilkNodeInfo
ok $? "no xCilkNodeInfo without cilknow-x11"
dpkg -i "$X1" >"$T/x1.out" 2>&1
exit_is $? 0 "dpkg -i cilknow-x11 $V1"
test -x /usr/bin/xCilkNodeInfo && [ "$(version /usr/bin/xCilkNodeInfo)" = "$V1" ]
ok $? "xCilkNodeInfo installed, saying -V $V1"

key=$(md5sum </etc/cilknow/cluster.key)
echo "# ours" >>/etc/cilknow/cilknow.conf
/usr/bin/CilkKey generate-user -u ann "$T/ann.id" >/dev/null
/usr/bin/CilkKey public "$T/ann.id" >/etc/cilknow/users/ann.pub
echo "always add idletime=60" >/var/lib/cilknow/predicates-test
dpkg -i "$D2" "$X2" >"$T/i2.out" 2>&1
exit_is $? 0 "upgrade both to $V2"
[ "$(dpkg-query -W -f='${Version}' cilknow)" = "$V2" ]
ok $? "$V2 is installed"
[ "$(version /usr/bin/CilkKey)" = "$V2" ] &&
    [ "$(version /usr/sbin/CilkNodeManager)" = "$V2" ]
ok $? "and its programs say -V $V2"
[ "$(md5sum </etc/cilknow/cluster.key)" = "$key" ]
ok $? "the upgrade kept the cluster key"
grep -q '^# ours$' /etc/cilknow/cilknow.conf && test -f /etc/cilknow/users/ann.pub
ok $? "and the configuration and users' keys"
test -f /var/lib/cilknow/predicates-test
ok $? "and the state (predicates)"

# Enabled as an administrator would, SysV and systemd.
update-rc.d cilknow-nodemanager enable >/dev/null 2>&1
W=/etc/systemd/system/multi-user.target.wants
mkdir -p "$W"
ln -sf /lib/systemd/system/cilknow-nodemanager.service "$W/"
ls /etc/rc2.d/S*cilknow-nodemanager >/dev/null 2>&1
ok $? "the node manager is enabled (rc2.d and $W)"

# Both daemons run from their init scripts, and two workers run, one
# with a cgroup of its own, each with a setsid() child: launch pads
# outlive the node manager, so removal must end them.
echo idletime=1000000 >"$T/sensors"
chmod 644 "$T/sensors"
cat >>/etc/cilknow/cilknow.conf <<EOC
broker = $BADDR
sensors = file:$T/sensors
register_interval = 1
timeout = 1
EOC
echo "DAEMON_ARGS=\"-o listen=$NADDR\"" >>/etc/default/cilknow-nodemanager
/etc/init.d/cilknow-broker start >"$T/bs.out" 2>&1 &&
    /etc/init.d/cilknow-nodemanager start >"$T/ns.out" 2>&1 &&
    wait_for 10 /usr/bin/CilkPing -n 1 -W 0.5 "$NADDR"
ok $? "the broker and the node manager run"
# Kept: purge removes the pid files, and the daemons hold the test's
# open files (the lock that serialises the tests among them).
DPIDS=$(cat /run/cilknow/*.pid 2>/dev/null)
for cg in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if [ "$(stat -f -c %T "$cg" 2>/dev/null)" = cgroup2fs ] &&
	    mkdir "$cg/cilknow-0945-$$" 2>/dev/null; then
		CG=$cg/cilknow-0945-$$
		mkdir "$CG/w-d1"
		break
	fi
done
mkdir -p "$T/wd" && chmod 755 "$T/wd"
for w in d1 d2; do
	{
		echo "cilknow-lpad-spec 1"
		echo "worker $w"
		echo "job 7"
		echo "user nobody"
		echo "cwd $T/wd"
		[ "$w" = d1 ] && [ -n "$CG" ] && echo "cgroup $CG/w-d1"
		echo "env PATH=/usr/bin:/bin"
		echo "argv /bin/sh"
		echo "argv -c"
		n=${w#d}
		echo "argv setsid sleep 1945$n & exec sleep 1000$n"
		echo end
	} >"$T/$w.spec"
	chmod 644 "$T/$w.spec"
	"$TOOLS/lpad_driver" spawn -b /usr/sbin/CilkLaunchPad -r /run/cilknow \
	    -S /var/lib/cilknow "$T/$w.spec" >"$T/$w.sp" 2>&1
done
# Only this test's processes (others may run the same programs);
# zombies do not count: in a container PID 1 may not reap them.
escaped() { pgrep -r RSDT -f '^sleep 1945[12]$' | wc -l; }
alive() { [ -n "$(ps -o stat= -p "$1" | grep -v '^Z')" ]; }
none_alive() { for p in "$@"; do alive "$p" && return 1; done; return 0; }
two_escaped() { [ "$(escaped)" -eq 2 ]; }
wait_for 10 two_escaped
ok $? "two workers run, each with a setsid() child (cgroup: ${CG:-none})"

dpkg -r cilknow >"$T/r0.out" 2>&1
[ $? -ne 0 ] && dpkg -s cilknow-x11 >/dev/null 2>&1
ok $? "cilknow is not removed while cilknow-x11 needs it"
dpkg -r cilknow-x11 >"$T/rx.out" 2>&1 && test ! -e /usr/bin/xCilkNodeInfo &&
    test -x /usr/sbin/CilkJobBroker
ok $? "dpkg -r cilknow-x11 removes xCilkNodeInfo only"
dpkg -r cilknow >"$T/r.out" 2>&1
exit_is $? 0 "dpkg -r"
sed 's/^/#   | /' "$T/r.out"
[ -n "$DPIDS" ] && none_alive $DPIDS
ok $? "the daemons are stopped"
# shellcheck disable=SC2046
none_alive $(sed -n 's/^lpad //p; s/^worker //p' "$T"/d?.sp)
ok $? "the launch pads and the workers are gone"
[ "$(escaped)" -eq 0 ]
ok $? "and so are the setsid() children"
test ! -e /usr/sbin/CilkJobBroker && test -f /etc/cilknow/cluster.key
ok $? "the programs are gone, the keys stay"
dpkg -P cilknow >"$T/p.out" 2>&1
exit_is $? 0 "dpkg -P"
test ! -e /etc/cilknow && test ! -e /var/lib/cilknow && test ! -e /run/cilknow &&
    test ! -e /etc/init.d/cilknow-broker && test ! -e /etc/default/cilknow-broker
ok $? "purge removes keys, configuration, state and conffiles"
! ls /etc/rc?.d/*cilknow* >/dev/null 2>&1 &&
    test ! -e "$W/cilknow-nodemanager.service" &&
    test ! -L "$W/cilknow-nodemanager.service" &&
    test ! -L /etc/systemd/system/cilknow-nodemanager.service
ok $? "and the links that enabled the services, no mask left"
finish
