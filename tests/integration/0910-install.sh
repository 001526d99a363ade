#!/bin/bash
# make install PREFIX=/usr DESTDIR=ROOT puts every program, man page and
# sample where it belongs and nothing in /etc; make uninstall takes
# exactly that away again and leaves what is not ours.
# chain: make install (conf-gen) writes into the shared build folder: one at a time
. "$(dirname "$0")/lib.sh"
: "${CILKNOW_TOP:?}"
R=$T/root
# -o all: install what the suite built, never rebuild it differently.
mk() { make -s -C "$CILKNOW_TOP" -o all BUILD="$CILKNOW_BUILD" \
    PREFIX=/usr DESTDIR="$R" "$@"; }

mk install >"$T/install.out" 2>&1
exit_is $? 0 "make install PREFIX=/usr DESTDIR=..."
(cd "$R" && find . ! -type d | sort) >"$T/files"
sed 's/^/# /' "$T/files"

missing=0
for p in "$SBIN"/*; do
	[ -x "$R/usr/sbin/${p##*/}" ] || { echo "# no ${p##*/} in sbin"; missing=1; }
done
for p in "$BIN"/*; do
	[ -x "$R/usr/bin/${p##*/}" ] || { echo "# no ${p##*/} in bin"; missing=1; }
done
ok $missing "every daemon is in /usr/sbin and every utility in /usr/bin"
[ "$(stat -c %a "$R/usr/sbin/CilkJobBroker")" = 755 ]
ok $? "programs are mode 0755"
missing=0
for m in "$CILKNOW_TOP"/man/*.[1-8]; do
	f=${m##*/}
	[ -f "$R/usr/share/man/man${f##*.}/$f" ] || { echo "# no $f"; missing=1; }
done
ok $missing "every man page is in its section under /usr/share/man"
E=$R/usr/share/doc/cilknow/examples
for f in cilknow.conf systemd/cilknow-broker.service \
    systemd/cilknow-nodemanager.service logrotate.d/cilknow \
    default/cilknow-broker default/cilknow-nodemanager; do
	test -f "$E/$f"
	ok $? "sample $f"
done
test -x "$E/init.d/cilknow-broker" && test -x "$E/init.d/cilknow-nodemanager"
ok $? "both init scripts, executable"
! grep -rq '@[A-Z]*@' "$E"
ok $? "no @PLACEHOLDER@ is left in the samples"
grep -q '^ExecStart=/usr/sbin/CilkJobBroker -f' "$E/systemd/cilknow-broker.service"
ok $? "the unit runs /usr/sbin/CilkJobBroker"
grep -q '^DAEMON=/usr/sbin/CilkNodeManager$' "$E/init.d/cilknow-nodemanager"
ok $? "the node manager's init script runs /usr/sbin/CilkNodeManager"
test ! -e "$R/etc"
ok $? "nothing is installed in /etc"

mk install >/dev/null 2>&1
(cd "$R" && find . ! -type d | sort) | cmp -s - "$T/files"
ok $? "a second install puts the same files in place"

# A user's program against what was installed: cilknow.h, libcilknow.a
# and cilknow.pc (which names /usr: -I and -L put R first; its
# Requires.private bring libbsd's overlay and libsodium).  make check's
# library is instrumented: its link needs the sanitizers' runtime too.
san=
nm -u "$R/usr/lib/libcilknow.a" | grep -q __asan_ &&
    san=-fsanitize=address,undefined
# shellcheck disable=SC2046,SC2086 # flags are words
cc -Wall $san -I"$R/usr/include" -o "$T/queens" \
    "$CILKNOW_TOP/examples/queens.c" -L"$R/usr/lib" \
    $(PKG_CONFIG_PATH=$R/usr/lib/pkgconfig pkg-config --cflags --static \
    --libs cilknow) >"$T/cc.out" 2>&1
ok $? "queens builds with pkg-config --static --libs cilknow"
test ! -s "$T/cc.out"
ok $? "without a warning"
sed 's/^/#   /' "$T/cc.out"
[ "$("$T/queens" -Alone 8 2>&1)" = 92 ]
ok $? "and finds the 92 solutions of 8 queens"

# The runtime's hook: with a public header, the library and cilknow.pc.
mk RUNTIME_HDRS=include/log.h install >/dev/null 2>&1
test -f "$R/usr/include/log.h" && test -f "$R/usr/lib/libcilknow.a" &&
    test -f "$R/usr/lib/pkgconfig/cilknow.pc"
ok $? "a runtime header brings the header, libcilknow.a and cilknow.pc"
PKG_CONFIG_PATH=$R/usr/lib/pkgconfig pkg-config --libs cilknow 2>&1 |
    grep -q -- '-lcilknow'
ok $? "pkg-config --libs cilknow says -lcilknow"
PKG_CONFIG_PATH=$R/usr/lib/pkgconfig pkg-config --modversion cilknow |
    grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'
ok $? "and knows the version"
mk RUNTIME_HDRS=include/log.h uninstall >/dev/null 2>&1
test ! -e "$R/usr/lib/libcilknow.a" && test ! -e "$R/usr/include/log.h" &&
    test ! -e "$R/usr/lib/pkgconfig/cilknow.pc"
ok $? "uninstall takes the runtime's files away too"

mk install >/dev/null 2>&1
mkdir -p "$R/usr/share/doc/cilknow/examples"
echo mine >"$R/usr/bin/not-ours"
echo mine >"$R/usr/share/doc/cilknow/examples/local-notes"
mk uninstall >"$T/uninstall.out" 2>&1
exit_is $? 0 "make uninstall"
(cd "$R" && find . ! -type d | sort) >"$T/left"
printf './usr/bin/not-ours\n./usr/share/doc/cilknow/examples/local-notes\n' |
    cmp -s - "$T/left"
ok $? "only the files that were not ours are left"
sed 's/^/#   left: /' "$T/left"
contains "$T/uninstall.out" "kept .*/examples: not empty" \
    "a folder of ours with foreign files is kept, and said so"
rm -f "$R/usr/bin/not-ours" "$R/usr/share/doc/cilknow/examples/local-notes"
mk uninstall >/dev/null 2>&1
test -z "$(find "$R" ! -type d)" && test ! -e "$R/usr/share/doc/cilknow"
ok $? "then nothing at all is left, and cilknow's own folders are gone"
finish
