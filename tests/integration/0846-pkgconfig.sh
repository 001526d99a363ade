#!/bin/bash
# The build tree's cilknow.pc (cilknow(3), SYNOPSIS): a program of
# threads compiled with nothing but
# cc prog.c $(pkg-config --cflags --libs cilknow) runs and gives its
# serial twin's answer; cilknow(3) gives that same link line.
. "$(dirname "$0")/lib.sh"
TOP=${CILKNOW_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export PKG_CONFIG_PATH=$CILKNOW_BUILD/lib/pkgconfig
check "pkg-config knows cilknow in the build tree" pkg-config --exists cilknow
flags=$(pkg-config --cflags --libs cilknow)
echo "# flags: $flags"
# shellcheck disable=SC2086
cc -o "$T/pi" "$TOP/examples/pi.c" $flags >"$T/cc.out" 2>&1
ok $? "examples/pi.c compiles and links with them alone"
sed 's/^/#   | /' "$T/cc.out" | head -10
"$T/pi" -Alone 100000 >"$T/pi.out" 2>&1
exit_is $? 0 "it runs"
"$TOOLS/pi_serial" 100000 >"$T/pi.want"
[ "$(tail -1 "$T/pi.out")" = "$(tail -1 "$T/pi.want")" ]
ok $? "and prints pi_serial's answer, $(tail -1 "$T/pi.want")"
grep -q 'pkg-config --cflags --libs cilknow' "$TOP/man/cilknow.3"
ok $? "cilknow(3) gives that link line"
finish
