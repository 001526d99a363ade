#!/bin/sh
# The README's commands (./make demo, ./make check) on a machine that may
# not have GNU make yet, as a fresh Debian does not: what is missing is
# installed first (as root) or named in one apt-get command (otherwise),
# then make runs the target.
cd "$(dirname "$0")" || exit 1
if ! command -v make >/dev/null 2>&1; then
	groups=build
	for target in "$@"; do
		case "$target" in
		check*|fuzz) groups="build check cluster" ;;
		esac
	done
	# shellcheck disable=SC2086
	sh tests/install-deps.sh $groups || exit 1
fi
exec make "$@"
