#!/bin/bash
# make check-cluster: a real three-machine cluster of systemd-nspawn
# containers booted with systemd (Debian 12), on a bridge of their own.
# The freshly built .deb is installed in each and the admin guide's
# "A two-node cluster, step by step" (cilknow(7)) is followed as
# literally as a script can: falcon runs the broker and lends itself,
# hawk and vulture lend themselves, ann submits from falcon.  Then a
# job of ann's spans the three while vulture's owner presses a key (an
# input device), hawk's owner logs in and types, the broker and a node
# manager are restarted and the package is upgraded; then the package
# is removed and purged.  TAP output and a summary; exit 1 on failure.
#
#   tests/cluster/run.sh BUILD-DIR      (the .deb is BUILD-DIR/cilknow_*.deb)
#
# The container image (debootstrap minbase, systemd and the .deb's
# Depends) is built once into CILKNOW_CLUSTER_CACHE and shared by the
# containers read-only, each with an overlay of its own.  Nothing but
# a bridge of this run's own, cnbrPID (no address on this machine, no
# uplink), connects the containers: they reach nothing else, nothing
# else reaches them.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: run.sh BUILD-DIR}
build=$(cd "$build" && pwd) || exit 1
cache=${CILKNOW_CLUSTER_CACHE:-/var/cache/cilknow-cluster}
mirror=${CILKNOW_CLUSTER_MIRROR:-http://deb.debian.org/debian}
# This run's own names: runs side by side (make check's and a fresh
# machine's) share nothing but the image.
bridge=cnbr$$
machine=cn$$
net=10.231.0
nodes="falcon hawk vulture"
declare -A addr=([falcon]=11 [hawk]=12 [vulture]=13)
# The image's packages (udev: the group input, as on a desktop); a
# change of the list makes a new image.
pkgs=systemd,systemd-sysv,udev,dbus,libsodium23,libbsd0,libsystemd0,procps,passwd,iproute2,libmunge2,munge,libsqlite3-0,libcairo2,libx11-6,libfontconfig1
# faults.sh sets a node's clock 10 minutes fast with this machine's
# libfaketime (check-deps installs it), copied into the containers: the
# same Debian 12, and no new image to build.
faketime=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
image=$cache/bookworm-$(echo "$pkgs" | md5sum | cut -c1-8)

TAP_N=0 TAP_FAILED=0 TAP_SKIPPED=0 started=$(date +%s)
ok() {	# ok STATUS DESCRIPTION
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	return "$1"
}
skip() {	# skip REASON : one skipped step
	TAP_N=$((TAP_N + 1)) TAP_SKIPPED=$((TAP_SKIPPED + 1))
	echo "ok $TAP_N # SKIP $1"
}
summary() {
	echo "1..$TAP_N"
	echo "check-cluster: $((TAP_N - TAP_FAILED - TAP_SKIPPED)) passed," \
	    "$TAP_FAILED failed, $TAP_SKIPPED skipped," \
	    "$(( $(date +%s) - started )) s"
}
skip_all() {	# skip_all REASON : the cluster cannot run here
	skip "$1"
	summary
	exit 0
}
# wait_for SECONDS CMD... : polls CMD every 0.2 s until it succeeds
wait_for() {
	local end=$(( $(date +%s) + $1 ))
	shift
	while [ "$(date +%s)" -lt "$end" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

[ "$(id -u)" -eq 0 ] || skip_all "needs root (containers, mounts, a bridge)"
for tool in systemd-nspawn debootstrap nsenter ip; do
	command -v "$tool" >/dev/null || skip_all "$tool is missing" \
	    "(apt-get install systemd-container debootstrap util-linux iproute2)"
done
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
    skip_all "no overlay file system for the containers' roots"
deb=$(ls -t "$build"/cilknow_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "check-cluster: no $build/cilknow_*.deb (make deb)" >&2; exit 1; }

# ---- the image, once ---------------------------------------------------
mkdir -p "$cache" || exit 1
# One run builds it; another waits for it (flock on the cache).
exec 9>"$cache/.lock" && flock 9 || exit 1
if [ ! -d "$image" ]; then
	tmp=$(mktemp -d "$cache/build.XXXXXX") || exit 1
	echo "# check-cluster: debootstrap bookworm minbase + $pkgs into $image (once; a few minutes)"
	if ! debootstrap --variant=minbase --include="$pkgs" bookworm \
	    "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1; then
		tail -20 "$tmp/debootstrap.log" | sed 's/^/#   | /'
		rm -rf "$tmp"
		skip_all "debootstrap cannot make the containers' image from $mirror"
	fi
	# Addresses from systemd-networkd; no timers that reach out; a
	# machine id of its own for each container at every boot.
	chroot "$tmp/root" systemctl enable systemd-networkd >/dev/null 2>&1 &&
	    chroot "$tmp/root" systemctl mask apt-daily.timer \
	    apt-daily-upgrade.timer >/dev/null 2>&1 &&
	    : >"$tmp/root/etc/machine-id" &&
	    rm -f "$tmp/root/var/lib/dbus/machine-id" &&
	    mv "$tmp/root" "$image" || { rm -rf "$tmp"; exit 1; }
	rm -rf "$tmp"
fi
exec 9>&-

# ---- the containers ----------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-cluster.XXXXXX") || exit 1
declare -A nspawn=() leader=()
cleanup() {
	local n p
	for n in $nodes; do
		p=${nspawn[$n]:-}
		[ -n "$p" ] || continue
		# SIGTERM: nspawn shuts the container down cleanly.
		kill -TERM "$p" 2>/dev/null
	done
	for n in $nodes; do
		p=${nspawn[$n]:-}
		[ -n "$p" ] || continue
		for _ in $(seq 100); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		# A killed nspawn leaves its container's init behind.
		p=${leader[$n]:-}
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
	done
	for n in $nodes; do
		mountpoint -q "$work/$n/root" && { umount "$work/$n/root" ||
		    umount -l "$work/$n/root"; }
		rmdir "/run/systemd/nspawn/propagate/$machine-$n" 2>/dev/null
	done
	ip link del "$bridge" 2>/dev/null
	if [ "${CILKNOW_CLUSTER_KEEP:-0}" = 1 ] && [ "$TAP_FAILED" -ne 0 ]; then
		echo "# kept $work"
	else
		rm -rf --one-file-system "$work"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# on NODE CMD : runs the shell command CMD as root in NODE, as a login
# there would (PATH, HOME; not in a unit of the container's systemd).
on() {
	local n=$1
	shift
	nsenter -t "${leader[$n]}" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	    HOME=/root LANG=C.UTF-8 sh -c "$*"
}
# as NODE USER CMD : the same as USER, with a login shell's environment.
as() {
	local n=$1 u=$2
	shift 2
	nsenter -t "${leader[$n]}" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	    runuser -l "$u" -c "$*"
}

# The upgrade: the same programs built as a later version (the objects
# are copied; only what prints the version is compiled again), packaged
# as make deb does.
version=$(dpkg-deb -f "$deb" Version)
mkdir -p "$work/b2"
cp -a "$build/obj" "$build/lib" "$work/b2/"
# The dependency files name their objects under the build they came
# from: renamed, a header changed since that build recompiles here too
# (else objects of two layouts of one struct were linked together).
find "$work/b2/obj" -name '*.d' -exec sed -i \
    "s|^[^ :]*/obj/\([^ :]*\.o\):|$work/b2/obj/\1:|" {} +
make -s -C "$top" BUILD="$work/b2" VERSION="$version+cluster1" all conf-gen \
    >"$work/b2.out" 2>&1 &&
    deb2=$(sh "$top/conf/debian/build-deb.sh" "$work/b2" "$work" \
    2>"$work/deb2.err") || { cat "$work/b2.out" "$work/deb2.err" >&2; exit 1; }

ip link add "$bridge" type bridge && ip link set "$bridge" up ||
    skip_all "cannot make the bridge $bridge"
hosts=$(for n in $nodes; do printf '%s.%s %s.example.org %s\n' "$net" \
    "${addr[$n]}" "$n" "$n"; done)
for n in $nodes; do
	d=$work/$n
	mkdir -p "$d/upper" "$d/work" "$d/root"
	mount -t overlay overlay -o "lowerdir=$image,upperdir=$d/upper,workdir=$d/work" \
	    "$d/root" || skip_all "cannot mount an overlay on $d/root"
	echo "$n" >"$d/root/etc/hostname"
	printf '127.0.0.1 localhost\n%s\n' "$hosts" >"$d/root/etc/hosts"
	printf '[Match]\nName=host0\n[Network]\nAddress=%s.%s/24\nLinkLocalAddressing=no\nIPv6AcceptRA=no\n' \
	    "$net" "${addr[$n]}" >"$d/root/etc/systemd/network/10-cilknow-host0.network"
	cp "$deb" "$d/root/root/" || exit 1
	if [ -f "$faketime" ]; then
		mkdir -p "$d/root/${faketime%/*}" &&
		    cp "$faketime" "$d/root/$faketime" || exit 1
	fi
	# --keep-unit --register=no: no machined, no scope of its own.
	systemd-nspawn -q -D "$d/root" -M "$machine-$n" --hostname="$n" \
	    --boot --register=no --keep-unit --network-bridge="$bridge" \
	    </dev/null >"$d/console.log" 2>&1 &
	nspawn[$n]=$!
done
# The container's init is the nspawn process's child.
booted() {
	local n=$1 p
	p=$(pgrep -P "${nspawn[$n]}" | head -1)
	[ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] || return 1
	leader[$n]=$p
	on "$n" "systemctl is-system-running --wait" | grep -Eqx 'running|degraded'
}
# boot_wait NODE : up to 90 s, unless nspawn gives up before
boot_wait() {
	local end=$(( $(date +%s) + 90 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		booted "$1" 2>/dev/null && return 0
		kill -0 "${nspawn[$1]}" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
for n in $nodes; do
	if ! boot_wait "$n"; then
		echo "# $n's console:"
		# awk ends every line, the console's last ("login: ") too,
		# so that the skip below starts a line of its own.
		tail -15 "$work/$n/console.log" | awk '{ print "#   | " $0 }'
		skip_all "systemd-nspawn cannot boot a Debian 12 container with systemd here"
	fi
done
ok 0 "three containers booted with systemd: $nodes"
for n in $nodes; do
	on "$n" "systemctl --failed --no-legend" | sed "s/^/# $n: failed unit: /"
done
wait_for 20 on falcon "ip -br addr show host0 | grep -q $net.11" &&
    wait_for 20 on vulture "ip -br addr show host0 | grep -q $net.13"
ok $? "their addresses on $bridge"

# ---- cilknow(7), "A two-node cluster, step by step", with three --------
# ann has an account on every machine (the guide takes it for granted).
for n in $nodes; do
	on "$n" "useradd -m -s /bin/sh ann" || ok 1 "useradd ann on $n"
done
# 1. On every machine: dpkg -i.
for n in $nodes; do
	on "$n" "dpkg -i /root/$(basename "$deb")" >"$work/$n/dpkg-i.out" 2>&1
	ok $? "$n: dpkg -i $(basename "$deb")"
done
# 2. On falcon, whose fresh cluster key becomes the cluster's.
on falcon "cp /usr/share/doc/cilknow/examples/cilknow.conf /etc/cilknow/ &&
    echo 'broker = falcon.example.org' >> /etc/cilknow/cilknow.conf &&
    echo 'slots_by_load = no' >> /etc/cilknow/cilknow.conf &&
    systemctl enable --now cilknow-broker cilknow-nodemanager" \
    >"$work/falcon/enable.out" 2>&1
ok $? "falcon: the broker's configuration; systemctl enable --now cilknow-broker cilknow-nodemanager"
# 3. Key and configuration to the others (a tar pipe for scp -p), and
# their node managers.
for n in hawk vulture; do
	on falcon "cd /etc/cilknow && tar -cf - cluster.key cluster.pub cilknow.conf" |
	    on "$n" "tar -C /etc/cilknow -xpf -" &&
	    on "$n" "CilkNodeManager -n && systemctl enable --now cilknow-nodemanager" \
	    >"$work/$n/enable.out" 2>&1
	ok $? "$n: cluster key and configuration copied; CilkNodeManager -n && systemctl enable --now cilknow-nodemanager"
done
# 4. ann's key; its public half on every machine.
as falcon ann "CilkKey generate-user && CilkKey public ~/.cilknow/id > /tmp/ann.pub" \
    >"$work/falcon/ann-key.out" 2>&1 &&
    on falcon "install -m 644 /tmp/ann.pub /etc/cilknow/users/ann.pub"
ok $? "falcon: ann makes her key; root installs its public half"
for n in hawk vulture; do
	on falcon "cd /etc/cilknow/users && tar -cf - ann.pub" |
	    on "$n" "tar -C /etc/cilknow/users -xpf -"
	ok $? "$n: ann.pub copied"
done
# Users' keys count from the daemons' next reload (cilknow(7)).
reload_keys() {
	on falcon "systemctl reload cilknow-broker cilknow-nodemanager" &&
	    on hawk "systemctl reload cilknow-nodemanager" &&
	    on vulture "systemctl reload cilknow-nodemanager"
}
reload_keys
ok $? "systemctl reload on every machine: the keys count"
# 5. Check: every node listed, and hawk answers pings.
nodes_listed() {
	on falcon "CilkNodes -n" >"$work/nodes.out" 2>&1 &&
	    for n in $nodes; do
		grep -q " $net.${addr[$n]} " "$work/nodes.out" || return 1
	    done
}
wait_for 30 nodes_listed
ok $? "CilkNodes lists falcon, hawk and vulture"
sed 's/^/#   | /' "$work/nodes.out"
as falcon ann "CilkPing hawk.example.org:7411" >"$work/ping.out" 2>&1
ok $? "CilkPing hawk.example.org:7411"
sed 's/^/#   | /' "$work/ping.out"

# vulture's keyboard: a FIFO at the default input_devices path
# (/dev/input/event*), in the group input, as udev makes them; the node
# manager reads it from its next poll on.
on vulture "mkdir -p /dev/input && mkfifo -m 660 /dev/input/event0 &&
    chgrp input /dev/input/event0"
ok $? "vulture: a keyboard at /dev/input/event0 (a FIFO)"
wait_for 10 on vulture "journalctl -u cilknow-nodemanager | grep -q 'reading input device /dev/input/event0'"
ok $? "vulture's node manager reads it"
# The node manager's engine sees a file system of its own: its unit
# leaves the parent the capabilities to make it (CilkNodeManager(8),
# PRIVILEGES); the broker's unit does not, and its sandbox stands in.
on vulture 'p=$(systemctl show -p MainPID --value cilknow-nodemanager)
    for c in $(ps -o pid= --ppid "$p"); do
        tr "\0" " " </proc/$c/cmdline | grep -q "engine" && e=$c; done
    [ -n "$e" ] &&
    grep -Eq "^[0-9]+ [0-9]+ [0-9:]+ / / ro,.* - tmpfs " /proc/$e/mountinfo &&
    [ -d /proc/$e/root/var/lib/cilknow/engine ] &&
    [ ! -e /proc/$e/root/usr ] && [ ! -e /proc/$e/root/dev/input ] &&
    [ ! -e /proc/$e/root/proc/self ] && [ -e /proc/$e/root/run/munge ] &&
    [ ! -e /proc/$e/root/etc/passwd ] &&
    [ "$(ls /proc/$e/root/etc)" = cilknow ]'
ok $? "vulture: the engine's root is a read-only tmpfs: its folder, munge's, the users' keys; no /etc/passwd, /usr, /proc or /dev/input"
on falcon "journalctl -u cilknow-broker | grep -q \"the engine's own view of the files is not made: CAP_SYS_ADMIN\""
ok $? "falcon: the broker's engine has none, and says its sandbox stands in"

# 6. The default predicate (900 s without input, load below 0.35) keeps
# containers on a loaded machine busy: as the guide says, root, with a
# key of its own ("Whose keys must be where"), lends them after 5 s
# without input whatever the load.
on falcon "CilkKey generate-user >/dev/null &&
    CilkKey public /root/.cilknow/id > /etc/cilknow/users/root.pub" &&
    for n in hawk vulture; do
	on falcon "cd /etc/cilknow/users && tar -cf - root.pub" |
	    on "$n" "tar -C /etc/cilknow/users -xpf -" || break
    done && reload_keys &&
    on falcon "CilkPred always add idletime=5,load=100,100,100" \
    >"$work/pred.out" 2>&1
ok $? "root's key on every machine; CilkPred always add idletime=5,load=100,100,100"
state_is() {	# state_is NODE STATE
	on falcon "CilkNodes -n" 2>/dev/null | awk -v a="$net.${addr[$1]}" \
	    '$2 == a { print $3 }' | grep -qx "$2"
}
idle3() { state_is falcon idle && state_is hawk idle && state_is vulture idle; }
wait_for 30 idle3
ok $? "the three nodes are idle"
# Each lends every processor it has (slots = auto; slots_by_load = no).
declare -A procs=()
for n in $nodes; do
	procs[$n]=$(on falcon "CilkNodes -n" 2>/dev/null | awk -v a="$net.${addr[$n]}" \
	    '$2 == a { split($4, s, "/"); if (s[2] == s[3]) print s[3] }')
done
[ -n "${procs[falcon]}" ] && [ -n "${procs[hawk]}" ] && [ -n "${procs[vulture]}" ]
ok $? "each node lends all its processors (falcon ${procs[falcon]}, hawk ${procs[hawk]}, vulture ${procs[vulture]})"
on falcon CilkNodes | sed 's/^/#   | /'

# 7. ann runs a job; it spreads to every idle node.
as falcon ann "timeout 60 CilkRun -- sh -c 'echo hello from \$CILKNOW_NODE'" \
    >"$work/hello.out" 2>&1
ok $? "ann: CilkRun -- sh -c 'echo hello from \$CILKNOW_NODE' ends, exit 0"
for n in $nodes; do
	grep -qx "\[$n\] hello from $n" "$work/hello.out"
	ok $? "hello from $n"
done
sed 's/^/#   | /' "$work/hello.out"

# ---- a long job across the three ---------------------------------------
as falcon ann "echo \$\$ > /tmp/job.pid &&
    exec CilkRun -- sh -c 'echo up on \$CILKNOW_NODE; exec sleep 100000'" \
    >"$work/job.out" 2>&1 &
job=$!
worker() { on "$1" "pgrep -u ann -x sleep"; }	# worker NODE : its pid
declare -A wpid=()
workers_are() {	# workers_are NODE... : each runs a worker a processor
	local n
	for n in "$@"; do
		[ "$(worker "$n" | wc -l)" -eq "${procs[$n]}" ] || return 1
	done
}
# stopped NODE : none of the workers seen before runs
stopped() {
	on "$1" "for p in $(echo ${wpid[$1]}); do kill -0 \$p 2>/dev/null && exit 1; done; exit 0"
}
# same_workers NODE... : the workers seen before still run, no others
same_workers() {
	local n
	for n in "$@"; do
		[ "$(worker "$n")" = "${wpid[$n]}" ] || return 1
	done
}
# diag NODE... : what a failed step leaves to read
diag() {
	local n
	for n in "$@"; do
		echo "# $n: ann's processes, then the node manager's journal:"
		on "$n" "ps -o pid,ppid,user,args -u ann; journalctl -q -n 15 -u cilknow-nodemanager" |
		    sed 's/^/#   | /'
	done
}
# same_or_diag NODE... : same_workers, and what differs if not
same_or_diag() {
	local n
	same_workers "$@" && return 0
	for n in "$@"; do
		echo "# $n: worker ${wpid[$n]} before, now $(worker "$n" | tr '\n' ' ')"
	done
	return 1
}
remember() { local n; for n in $nodes; do wpid[$n]=$(worker "$n"); done; }
# job_on NODE... : the broker lists the job, and each NODE running it
job_on() {
	local n
	on falcon "CilkPs -u ann" 2>/dev/null | grep -q 'sleep 100000' || return 1
	for n in "$@"; do
		state_is "$n" running || return 1
	done
}
wait_for 30 workers_are $nodes && wait_for 10 job_on $nodes
ok $? "a job of ann's runs a worker on each processor of each node"
remember
on falcon "CilkPs; CilkNodes" | sed 's/^/#   | /'

# The owner of vulture presses a key: vulture is busy at once, its
# worker stopped; 5 s later it is lent again and runs the job anew.
press() {	# one EV_KEY press of KEY_A and an EV_SYN, as evdev writes them
	head -c 16 /dev/zero
	printf '\001\000\036\000\001\000\000\000'
	head -c 24 /dev/zero
}
t0=$(date +%s)
press | on vulture "timeout 5 sh -c 'cat > /dev/input/event0'"
ok $? "vulture: a key press on /dev/input/event0"
wait_for 10 state_is vulture busy
ok $? "vulture is busy ($(( $(date +%s) - t0 )) s)"
wait_for 10 stopped vulture
ok $? "its workers are stopped"
same_workers falcon hawk
ok $? "the others run on"
wait_for 30 workers_are vulture && wait_for 10 job_on vulture
ok $? "vulture is lent again and runs the job ($(( $(date +%s) - t0 )) s)"
remember

# hawk's owner logs in on a terminal (login(1) on a pseudo-terminal,
# in utmp) and later types there; what is typed goes to the file typed.
mainpid() { on "$1" "systemctl show -p MainPID --value cilknow-$2"; }
type_on_hawk() { on hawk "echo '$1' >> /root/typed"; }
on hawk ": > /root/typed && { tail -f /root/typed |
    script -qfc 'login -f ann' /dev/null; } </dev/null >/root/tty.out 2>&1 &"
t0=$(date +%s)
wait_for 10 on hawk "who | grep -q '^ann '"
ok $? "hawk: ann logs in (login -f ann on a pseudo-terminal; who lists her)"
on hawk who | sed 's/^/#   | /'
tty=$(on hawk "who | awk '\$1 == \"ann\" { print \$2; exit }'")
wait_for 10 state_is hawk busy
ok $? "hawk is busy ($(( $(date +%s) - t0 )) s)"
wait_for 10 stopped hawk
ok $? "its workers are stopped"
wait_for 40 workers_are hawk
ok $? "with no input for 5 s, hawk is lent again though ann stays ($(( $(date +%s) - t0 )) s)"
# The kernel stamps a terminal's access time at most every 8 s.
tty_idle() { [ $(( $(date +%s) - $(on hawk "stat -c %X /dev/$tty") )) -ge "$1" ]; }
wait_for 20 tty_idle 9
remember
t0=$(date +%s)
type_on_hawk "echo typed by ann"
wait_for 10 state_is hawk busy
ok $? "ann types a command: hawk is busy ($(( $(date +%s) - t0 )) s)"
wait_for 10 stopped hawk
ok $? "its workers are stopped"
grep -q 'typed by ann' "$work/hawk/upper/root/tty.out" 2>/dev/null ||
    on hawk "grep -q 'typed by ann' /root/tty.out"
ok $? "the command ran in ann's shell"
type_on_hawk exit
wait_for 10 on hawk "! who | grep -q '^ann '"
ok $? "ann logs out"
type_on_hawk ""	# tail -f ends on the closed pipe
wait_for 40 workers_are hawk && wait_for 10 job_on hawk
ok $? "hawk is lent again and runs the job ($(( $(date +%s) - t0 )) s)"
remember

# A node manager restart mid-job: the worker runs on and is adopted
# ("systemctl restart cilknow-nodemanager stops no job", cilknow(7)),
# on hawk and on vulture, which has a keyboard.
for n in hawk vulture; do
	before=$(mainpid "$n" nodemanager)
	on "$n" "systemctl restart cilknow-nodemanager"
	ok $? "$n: systemctl restart cilknow-nodemanager"
	[ "$(mainpid "$n" nodemanager)" != "$before" ]
	ok $? "$n: a new node manager runs"
	wait_for 10 on "$n" "journalctl -u cilknow-nodemanager | grep -q 'adopted worker'"
	ok $? "$n: it adopted the running worker"
	wait_for 2 on "$n" false	# its first polls
	same_or_diag $nodes
	ok $? "$n: every worker runs on" || diag "$n"
done
wait_for 40 workers_are $nodes && wait_for 70 job_on $nodes
ok $? "the broker lists the three nodes running the job"
remember

# A broker restart mid-job: nodes and the job register again.
t0=$(date +%s)
on falcon "systemctl restart cilknow-broker"
ok $? "falcon: systemctl restart cilknow-broker"
wait_for 90 job_on $nodes
ok $? "the job and its three nodes are back in the broker's lists ($(( $(date +%s) - t0 )) s)"
same_or_diag $nodes
ok $? "no worker was stopped"

# A package upgrade mid-job, on every machine.
for n in hawk vulture falcon; do
	nm=$(mainpid "$n" nodemanager)
	on "$n" "cat > /root/$(basename "$deb2")" <"$deb2" &&
	    on "$n" "dpkg -i /root/$(basename "$deb2")" >"$work/$n/dpkg-up.out" 2>&1
	ok $? "$n: dpkg -i $(basename "$deb2") mid-job"
	[ "$(on "$n" "dpkg-query -W -f='\${Version}' cilknow")" = "$version+cluster1" ]
	ok $? "$n: $version+cluster1 is installed"
	[ "$(mainpid "$n" nodemanager)" != "$nm" ] &&
	    on "$n" "systemctl is-active -q cilknow-nodemanager"
	ok $? "$n: the upgrade restarted the node manager"
done
on falcon "systemctl is-active -q cilknow-broker"
ok $? "falcon: the broker runs"
same_or_diag $nodes
ok $? "no worker was stopped by the upgrade" || diag $nodes
t0=$(date +%s)
wait_for 90 job_on $nodes
ok $? "the broker lists the job on its three nodes ($(( $(date +%s) - t0 )) s)"

# The job ends: its workers end everywhere.
on falcon "kill -INT \$(cat /tmp/job.pid)"
for _ in $(seq 100); do
	kill -0 "$job" 2>/dev/null || break
	sleep 0.1
done
! kill -0 "$job" 2>/dev/null
ok $? "ann's CilkRun ends on Ctrl-C"
# no_workers : no worker and no launch pad on any node
no_workers() {
	local n
	for n in $nodes; do
		[ -z "$(worker "$n")" ] && on "$n" "! pgrep -x CilkLaunchPad" || return 1
	done
}
# The broker was restarted by the upgrade a minute ago: too young for
# nodes to take a job missing from its push for ended, but the job's
# unregistration is named to them (JOB_GONE, CilkJobBroker(8)).
t0=$(date +%s)
wait_for 30 no_workers
ok $? "no worker and no launch pad is left on any node ($(( $(date +%s) - t0 )) s)" ||
    { diag $nodes; echo "# the job's output:"; tail -15 "$work/job.out" | sed 's/^/#   | /'; }
for n in $nodes; do
	c=$(grep -c "^\[$n\] up on $n\$" "$work/job.out")
	echo "# $n: the job started there $c times"
done

# ---- users with no key of their own: munge (cilknow(7), "Users") -------
# falcon's munge key to the others, as the guide says (the hosts share
# one image here, so it is the same key already: copied all the same);
# user_auth = munge,user everywhere, and a reload.
on falcon "test -s /etc/munge/munge.key" &&
    for n in hawk vulture; do
	on falcon "cd /etc/munge && tar -cpf - munge.key" |
	    on "$n" "tar -C /etc/munge -xpf - && systemctl restart munge" || break
    done && on falcon "systemctl restart munge"
ok $? "munge.key from falcon on every machine, munged restarted"
on falcon "echo 'user_auth = munge,user' >> /etc/cilknow/cilknow.conf" &&
    for n in hawk vulture; do
	on falcon "cd /etc/cilknow && tar -cf - cilknow.conf" |
	    on "$n" "tar -C /etc/cilknow -xpf -" || break
    done && reload_keys
ok $? "user_auth = munge,user on every machine; systemctl reload"
# bob has an account everywhere and no cilknow key at all.
for n in $nodes; do
	on "$n" "useradd -m -s /bin/sh bob" || ok 1 "useradd bob on $n"
done
wait_for 30 idle3
ok $? "the three nodes are idle"
as falcon bob "test ! -e ~/.cilknow && timeout 60 CilkRun -- sh -c 'echo munge hello from \$CILKNOW_NODE'" \
    >"$work/bob.out" 2>&1
ok $? "bob, with no cilknow key: CilkRun ends, exit 0"
for n in $nodes; do
	grep -qx "\[$n\] munge hello from $n" "$work/bob.out"
	ok $? "munge hello from $n"
done
sed 's/^/#   | /' "$work/bob.out"
as falcon bob "CilkPred user=bob add idletime=7 && CilkPred user=bob list" \
    >"$work/bob-pred.out" 2>&1 && grep -q "idletime=7" "$work/bob-pred.out"
ok $? "bob edits his predicates with CilkPred" ||
    sed 's/^/#   | /' "$work/bob-pred.out"
as falcon bob "CilkPred always add idletime=1" >"$work/bob-pred2.out" 2>&1
[ $? -eq 1 ] && grep -q "admin" "$work/bob-pred2.out"
ok $? "but not the cluster's (refused: not an administrator)" ||
    sed 's/^/#   | /' "$work/bob-pred2.out"
on falcon "journalctl -q -u cilknow-broker | grep -q 'registered by bob'"
ok $? "the broker names bob from his credential"

# ---- faults on one node, and what needs systemd and cgroups -----------
. "$top/tests/cluster/faults.sh"

# ---- removal -----------------------------------------------------------
for n in $nodes; do
	on "$n" "dpkg -r cilknow" >"$work/$n/dpkg-r.out" 2>&1
	ok $? "$n: dpkg -r cilknow"
	on "$n" "! systemctl is-active -q cilknow-nodemanager cilknow-broker &&
	    ! pgrep -x CilkNodeManager && ! pgrep -x CilkJobBroker" >/dev/null
	ok $? "$n: no daemon runs"
	on "$n" "! pgrep -x CilkLaunchPad" >/dev/null
	ok $? "$n: no launch pad is left" ||
	    on "$n" "ps -eo pid,ppid,user,args | grep [C]ilkLaunchPad;
	    journalctl -q -n 12 -t CilkLaunchPad -t CilkNodeManager" |
	    sed 's/^/#   | /'
	on "$n" "test ! -e /usr/sbin/CilkNodeManager && test -f /etc/cilknow/cluster.key"
	ok $? "$n: the programs are gone, the keys stay"
	on "$n" "dpkg -P cilknow" >"$work/$n/dpkg-p.out" 2>&1 &&
	    on "$n" "test ! -e /etc/cilknow && test ! -e /var/lib/cilknow &&
	    test ! -e /lib/systemd/system/cilknow-nodemanager.service"
	ok $? "$n: dpkg -P cilknow removes keys, configuration and state"
done

summary
[ "$TAP_FAILED" -eq 0 ]
