#!/bin/sh
# Installs the Debian packages that a build (argument "build"), the
# tests ("check") or make check-cluster ("cluster") need and that are
# not installed yet: with apt-get when run as root, otherwise it prints
# the one command root must run and fails.  As root it also makes the
# service user cilknow.  Used by make (deps,
# check-deps) and by ./make before make itself exists.
build="build-essential pkg-config libsodium-dev libbsd-dev libsystemd-dev
	libmunge-dev mandoc libx11-dev libcairo2-dev libfontconfig-dev
	libsqlite3-dev"
check="clang libclang-rt-14-dev valgrind python3 lintian systemd procps
	munge dbus-daemon iproute2 xvfb x11-apps xdotool strace"
# libfaketime: copied into a container for a node whose clock is wrong
cluster="systemd-container debootstrap libfaketime"
wanted=
for group in "$@"; do
	case "$group" in
	build) wanted="$wanted $build" ;;
	check) wanted="$wanted $check" ;;
	# The container cluster needs root and skips without it: a
	# user is not sent to root for its packages.
	cluster) [ "$(id -u)" -ne 0 ] || wanted="$wanted $cluster" ;;
	*) echo "install-deps.sh: unknown group '$group'" >&2; exit 2 ;;
	esac
done
missing=
for pkg in $wanted; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $pkg" ;;
	esac
done
# As root, also the service user a broker started as root drops to
# (cilknow.conf(5), service_user), as the Debian package makes it, so
# that make check finds it on a fresh machine.  Not root: nothing.
if [ "$(id -u)" -eq 0 ] && ! getent passwd cilknow >/dev/null; then
	if getent group cilknow >/dev/null; then
		group="--gid cilknow"
	else
		group="--user-group"
	fi
	echo "cilknow: creating the service user cilknow" >&2
	# shellcheck disable=SC2086
	useradd --system $group --no-create-home --home-dir /nonexistent \
	    --shell /usr/sbin/nologin --comment "cilknow daemons" cilknow ||
	    exit 1
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	# No sudo: a minimal Debian has none; root runs this however it can.
	echo "cilknow: missing packages:$missing" >&2
	echo "cilknow: as root, run:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	if ! getent passwd cilknow >/dev/null; then
		echo "cilknow: and make the service user the daemons drop to:" >&2
		echo "  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin cilknow" >&2
	fi
	exit 1
fi
echo "cilknow: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq </dev/null >&2 || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing </dev/null >&2
