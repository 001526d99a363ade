#!/bin/sh
# One TAP line per man page: mandoc -Tlint must print nothing.
cd "$(dirname "$0")/.." || exit 1
n=0
for m in man/*.[1-8]; do
	[ -f "$m" ] || continue
	n=$((n + 1))
	out=$(mandoc -Tlint -Wwarning "$m" 2>&1)
	if [ -z "$out" ]; then
		echo "ok $n - mandoc -Tlint $m"
	else
		echo "not ok $n - mandoc -Tlint $m"
		echo "$out" | sed 's/^/# /'
	fi
done
echo "1..$n"
