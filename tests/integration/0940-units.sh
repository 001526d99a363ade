#!/bin/bash
# The systemd units as installed: systemd-analyze verify finds nothing
# to say (executables, man pages, directives); both are Type=notify with
# a watchdog and Restart=on-failure; the node manager's leaves launch
# pads and workers alone on stop (KillMode=process) and gets its cgroup
# delegated; the broker keeps only the capabilities its drop needs.
# systemd cannot be PID 1 here, so the units are verified, not run; the
# notify protocol itself is tested live by 0900-sdnotify, which also
# checks that only the main pid notifies (NotifyAccess=main).
# chain: make install (conf-gen) writes into the shared build folder: one at a time
. "$(dirname "$0")/lib.sh"
: "${CILKNOW_TOP:?}"
command -v systemd-analyze >/dev/null || {
	echo "ok 1 # SKIP systemd-analyze is missing (apt-get install systemd)"
	finish; exit 0; }
R=$T/root
make -s -C "$CILKNOW_TOP" -o all BUILD="$CILKNOW_BUILD" PREFIX="$R/usr" \
    SYSCONFDIR="$R/etc" install >"$T/install.out" 2>&1
exit_is $? 0 "install into $R"
U=$R/usr/share/doc/cilknow/examples/systemd
for u in cilknow-broker cilknow-nodemanager; do
	(cd "$U" && MANPATH=$R/usr/share/man: \
	    systemd-analyze verify "./$u.service") >"$T/$u.out" 2>&1
	rc=$?
	exit_is $rc 0 "systemd-analyze verify $u.service"
	test ! -s "$T/$u.out"
	ok $? "and it has nothing to say"
	sed 's/^/#   | /' "$T/$u.out"
	for d in Type=notify NotifyAccess=main WatchdogSec=30 Restart=on-failure \
	    "ExecReload=/bin/kill -HUP \$MAINPID"; do
		grep -qx -- "$d" "$U/$u.service"
		ok $? "$u: $d"
	done
done
grep -qx KillMode=process "$U/cilknow-nodemanager.service"
ok $? "the node manager's unit stops only the node manager"
grep -qx NoNewPrivileges=yes "$U/cilknow-broker.service" &&
    grep -qx 'CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_CHOWN CAP_KILL' \
    "$U/cilknow-broker.service" &&
    ! grep -Eq '^(User|DynamicUser)=' "$U/cilknow-broker.service"
ok $? "the broker starts as root with only what dropping to its service user needs, and no new privileges"
grep -qx Delegate=yes "$U/cilknow-nodemanager.service"
ok $? "the node manager's unit delegates its cgroup (per-worker cgroups)"
! grep -Eq '^(NoNewPrivileges|PrivateDevices|ProtectHome|CapabilityBoundingSet|SystemCallFilter)=' \
    "$U/cilknow-nodemanager.service"
ok $? "the node manager keeps what idle detection and workers need"
finish
