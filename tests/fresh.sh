#!/bin/bash
# make check-fresh: the README's two commands, exactly as written, on a
# fresh Debian 12 (debootstrap minbase plus git), as root and then as an
# ordinary user, in a chroot; prints each command's exit status, time and
# summary line.  The minbase root is cached (CILKNOW_FRESH_CACHE) and
# unpacked anew for every run; the code tested is this repository's HEAD,
# cloned as CI clones it (uncommitted changes are not in it).
#
# Root's commands install packages, so they need the network and run in
# this machine's network namespace: they take CILKNOW_TEST_LOCK, if set,
# to keep other suites off the loopback ports meanwhile.  The user's run
# installs nothing and gets a network namespace of its own.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${CILKNOW_FRESH_CACHE:-/var/cache/cilknow-fresh}
mirror=${CILKNOW_FRESH_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
limit=${CILKNOW_FRESH_TIMEOUT:-1800}

die() { echo "check-fresh: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
for tool in debootstrap unshare chroot ip; do
	command -v "$tool" >/dev/null ||
	    die "$tool is missing (apt-get install debootstrap iproute2)"
done

tarball=$cache/$suite-minbase-git.tar
if [ ! -s "$tarball" ]; then
	mkdir -p "$cache" || die "cannot make $cache"
	tmp=$(mktemp -d "$cache/build.XXXXXX") || exit 1
	echo "check-fresh: debootstrap $suite minbase + git into the cache" \
	    "(once; a few minutes)"
	if ! debootstrap --variant=minbase --include=git,ca-certificates \
	    "$suite" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1; then
		tail -20 "$tmp/debootstrap.log" >&2
		rm -rf "$tmp"
		die "debootstrap failed"
	fi
	tar -C "$tmp/root" -cf "$tarball.new" . && mv "$tarball.new" \
	    "$tarball" || die "cannot write $tarball"
	rm -rf "$tmp"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-fresh.XXXXXX") || exit 1
R=$work/root
logs=$work/logs
mkdir -p "$R" "$logs"
child=
cleanup() {
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	for m in var/cache/cilknow-cluster dev/pts dev sys proc ""; do
		mountpoint -q "$R/$m" && { umount -R "$R/$m" 2>/dev/null ||
		    umount -R -l "$R/$m"; }
	done
	if [ "${CILKNOW_FRESH_KEEP:-0}" = 1 ]; then
		echo "check-fresh: kept $work"
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
echo "check-fresh: unpacking the fresh root in $R"
tar -C "$R" -xf "$tarball" || die "cannot unpack $tarball"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
# The root a mount of its own, as on a machine: a node manager started
# as root makes its engine's view in a mount namespace whose root must
# be a mount (CilkNodeManager(8), PRIVILEGES).
mount --bind "$R" "$R" &&
    mount --bind /proc "$R/proc" && mount --rbind /sys "$R/sys" &&
    mount --make-rslave "$R/sys" && mount --bind /dev "$R/dev" &&
    mount --bind /dev/pts "$R/dev/pts" || die "cannot mount into $R"
# make check's container cluster builds its image once per machine: the
# fresh root shares this machine's (the image is not what is tested).
if [ -d /var/cache/cilknow-cluster ]; then
	mkdir -p "$R/var/cache/cilknow-cluster" &&
	    mount --bind /var/cache/cilknow-cluster "$R/var/cache/cilknow-cluster" ||
	    die "cannot mount the cluster image cache into $R"
fi

git clone -q --no-local "$top" "$R/root/cilknow" || die "git clone failed"
chroot "$R" useradd -m tester || die "useradd in the fresh root failed"
git clone -q --no-local "$top" "$R/home/tester/cilknow" &&
    chroot "$R" chown -R tester:tester /home/tester/cilknow ||
    die "git clone for tester failed"
echo "check-fresh: testing $(git -C "$top" rev-parse --short HEAD)"

failed=0
# step NAME EXPECT-RC USER CMD : runs CMD in the fresh root as USER,
# with no standard input, as CI runs it.
# CILKNOW_FRESH_STEPS: the steps to run (names, spaces between; all of
# them when unset), e.g. "user-before-root root-demo user-demo" for the
# set-up alone.
step() {
	local name=$1 want=$2 user=$3 cmd=$4 rc s
	case " ${CILKNOW_FRESH_STEPS:-$name} " in
	*" $name "*) ;;
	*) echo "check-fresh: $name: not run (CILKNOW_FRESH_STEPS)"; return 0 ;;
	esac
	s=$(date +%s)
	# In the background, so that an interrupt ends it at once (cleanup).
	# CILKNOW_TEST_LOCK names a file of this machine, not of the fresh
	# root: inside, each test's flock(1) could not open it (exit 66).
	if [ "$user" = root ]; then
		${CILKNOW_TEST_LOCK:+flock "$CILKNOW_TEST_LOCK"} \
		    timeout -k 10 "$limit" env -u CILKNOW_TEST_LOCK \
		    chroot "$R" sh -c \
		    "cd /root/cilknow && $cmd" </dev/null >"$logs/$name" 2>&1 &
	else
		timeout -k 10 "$limit" env -u CILKNOW_TEST_LOCK \
		    unshare --net sh -c \
		    "ip link set lo up && exec chroot --userspec=$user:$user \
		    \"$R\" env HOME=/home/$user sh -c \
		    'cd /home/$user/cilknow && $cmd'" </dev/null \
		    >"$logs/$name" 2>&1 &
	fi
	child=$!
	wait "$child"
	rc=$?
	child=
	if [ "$rc" -eq "$want" ]; then
		echo "ok   $name: exit $rc, $(( $(date +%s) - s )) s"
	else
		echo "FAIL $name: exit $rc (want $want), $(( $(date +%s) - s )) s"
		tail -15 "$logs/$name" | sed 's/^/    | /'
		failed=$((failed + 1))
	fi
	grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$|^FAIL ' \
	    "$logs/$name" | sed 's/^/    /'
}
# Before root has installed anything, a user is told what to run.
step user-before-root 1 tester "./make demo"
[ ! -e "$logs/user-before-root" ] ||	# (not run: CILKNOW_FRESH_STEPS)
    grep -q "apt-get update && apt-get install" "$logs/user-before-root" ||
    { echo "FAIL user-before-root: no apt-get command printed"; failed=$((failed + 1)); }
step root-demo 0 root "./make demo"
step root-check 0 root "./make check"
step user-demo 0 tester "./make demo"
step user-check 0 tester "./make check"
[ "$failed" -eq 0 ] && echo "check-fresh: all passed" ||
    echo "check-fresh: $failed failed"
[ "$failed" -eq 0 ]
