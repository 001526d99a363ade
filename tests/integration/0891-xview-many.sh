#!/bin/bash
# xCilkNodeInfo -a beyond one datagram of rows: 1,000 pretend node
# managers (tests/tools/fakenodes, 127.2.0.0/16) beside a 2-node
# CilkLocal cluster.  The broker answers LIST with 512 rows at most;
# xCilkNodeInfo asks LIST_PAGE page by page, so the --png picture has a
# tile for every node: the last one is drawn where the layout of all
# 1,002 puts it (utils/xCilkNodeInfo/model.c, xn_grid_layout), and the
# cell after it is empty.  The same in the user scheme, where every page
# is asked with the broker's cookie.  The time from start to the PNG
# written is printed (xCilkNodeInfo(1) quotes it).
# ports: 18920-18939
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=18920		# broker; the real nodes 18921
FAKEPORT=18930		# every pretend node sends from here
N=1000
"$BIN/CilkLocal" start -n 2 -d "$D" -p $PORT -o register_interval=2 \
    -o stop_grace=1 -o timeout=2 >"$T/start.out" 2>&1
exit_is $? 0 "CilkLocal start -n 2"
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
export CILKNOW_CONF=$D/cilknow.conf
X=$BIN/xCilkNodeInfo
PIX=$TOOLS/imgpix
GREEN=40b050

rows() { "$BIN/CilkNodes" "$@" | tail -n +2 | wc -l; }
rows_are() { want=$1; shift; test "$(rows "$@")" -eq "$want"; }
wait_for 15 rows_are 2 -s idle
ok $? "the real nodes are idle"
start fakes "$TOOLS/fakenodes" -n $N -i 2 -t 60 -p $FAKEPORT
FAKES=$LAST_PID
ALL=$((N + 2))
wait_for 15 rows_are $ALL -s idle
ok $? "CilkNodes lists $N idle pretend nodes and the real ones ($(rows))"

# The centre of tile I when there are TILES of them at 960x640, as
# xn_grid_layout places them (title 34 px, legend 26 px, gap 3 px).
centre() {	# centre TILES I
	awk -v n="$1" -v i="$2" 'BEGIN { w = 960; h = 640 - 34 - 26
	c = sqrt(n * w / h); cols = (c == int(c)) ? c : int(c) + 1
	if (cols > n) cols = n
	rows = int((n + cols - 1) / cols)
	tw = w / cols; th = h / rows
	if (tw > 200) tw = 200; if (th > 100) th = 100
	if (tw > 2 * th) tw = 2 * th
	gap = (tw < 20 || th < 20) ? 1 : 3
	printf "%d %d\n", (i % cols) * tw + (tw - gap) / 2,
	    34 + int(i / cols) * th + (th - gap) / 2 }'
}
# shellcheck disable=SC2046
pixel() { "$PIX" "$1" $(centre "$2" "$3"); }	# FILE TILES I
all_tiles() {	# all_tiles FILE: the last tile drawn, nothing after it
	[ "$(pixel "$1" $ALL $((ALL - 1)))" = $GREEN ] &&
	    [ "$(pixel "$1" $ALL $ALL)" != $GREEN ]
}

t0=$(date +%s.%N)
"$X" -a --png "$T/a.png" --size 960x640 >"$T/a.out" 2>&1
rc=$?
t1=$(date +%s.%N)
exit_is $rc 0 "xCilkNodeInfo -a --png with $ALL nodes"
echo "# xCilkNodeInfo -a --png, $ALL nodes: $(echo "$t1 - $t0" | bc) s from start to PNG written"
check "the picture is 960x640" test "$("$PIX" "$T/a.png")" = "960 640"
check "tile $ALL is drawn green (idle), and no tile after it" all_tiles "$T/a.png"
check "the first tile too" test "$(pixel "$T/a.png" $ALL 0)" = $GREEN

"$X" -a --png "$T/u.png" -o cluster_key="$T/none.key" >"$T/u.out" 2>&1
exit_is $? 0 "in the user scheme (a cookie for the pages)"
check "every tile again" all_tiles "$T/u.png"

stop "$FAKES"
contains "$T/fakes.out" "^fakenodes: $N nodes, [0-9]+ sent, [0-9]+ acks, 0 refused" \
    "no pretend node was refused ($(cat "$T/fakes.out"))"
finish
