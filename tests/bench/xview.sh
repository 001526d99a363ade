#!/bin/bash
# Benchmark: xCilkNodeInfo -a with a thousand nodes.  The time to draw
# 1000 tiles at 1280x960 (what the window redraws every second) beside
# the same picture with 3 nodes, and to write it as a PNG (--png),
# measured in the same run by the unit test tests/unit/xview_test.c
# (make testprogs builds it).
#   tests/bench/xview.sh BUILD
set -u
t=$1/tests/xview_test
if [ ! -x "$t" ]; then
	echo "xview: $t missing (make testprogs BUILD=$1)"
	exit 0
fi
"$t" | awk '/^# bench: xview draw 3 tiles/ { base = $(NF - 1) }
    /^# bench: xview draw 1000 tiles/ { big = $(NF - 1) }
    /^# bench: xview png 1000 tiles/ { png = $(NF - 1) }
    END { if (base > 0 && big > 0) {
	printf "xview -a: 1000 tiles drawn in %.2f ms, %.1fx the 3-tile picture (%.2f ms)\n", big, big / base, base
	printf "xview -a --png: 1000 tiles in %.1f ms a picture (PNG encoding included)\n", png
	} else { print "xview: no figures"; exit 1 } }'
