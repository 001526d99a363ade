#!/bin/sh
# make bench: every benchmark in tests/bench, each printing its figures
# as ratios against a baseline it measured in the same run.
dir=$(dirname "$0")
build=$1
rc=0
for b in "$dir"/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	bash "$b" "$build" || rc=1
done
exit $rc
