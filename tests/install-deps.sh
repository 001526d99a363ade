#!/bin/sh
# Installs the Debian packages named as arguments that are not installed
# yet: with apt-get when run as root, otherwise prints the exact command
# and fails.  As root it also makes the service user cilknow.  Used by
# make (deps, check-deps).
missing=
for pkg in "$@"; do
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
	echo "cilknow: missing build dependencies:$missing" >&2
	echo "cilknow: install them with:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "cilknow: installing build dependencies:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq </dev/null >&2 || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing </dev/null >&2
