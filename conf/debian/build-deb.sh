#!/bin/sh
# Builds the cilknow .deb from the tree with dpkg-deb alone (no
# debhelper): make install into a staging root, then the Debian places
# for what make install keeps as samples (units, init scripts, defaults,
# logrotate), compressed man pages and docs, and the control files.
# xCilkNodeInfo and its man page go into a second package, cilknow-x11,
# which depends on cilknow and alone pulls cairo and X11: a broker or a
# headless node installs cilknow only.
#   conf/debian/build-deb.sh BUILD OUTDIR
# Prints the path of cilknow's .deb; cilknow-x11's is beside it
# (OUTDIR/cilknow-x11_VERSION_ARCH.deb).
# The package's version is the one its programs print (-V), the
# Makefile's VERSION they were built with: one source of truth.
set -eu
build=$1 out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
version=$("$build/bin/CilkKey" -V | sed -n 's/^CilkKey (cilknow) //p')
[ -n "$version" ] || { echo "$build/bin/CilkKey -V: no version" >&2; exit 1; }
arch=$(dpkg --print-architecture)
stage=$build/deb/root
rm -rf "$build/deb"
mkdir -p "$stage" "$out"
# Libraries and cilknow.pc go to the multiarch folder, as lintian wants.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
    gcc -print-multiarch)
make -s -C "$top" -o all BUILD="$build" PREFIX=/usr DESTDIR="$stage" \
    LIBDIR="/usr/lib/$multiarch" VERSION="$version" install >/dev/null
ex=$stage/usr/share/doc/cilknow/examples
install -D -m 0644 "$ex/systemd/cilknow-broker.service" \
    "$stage/lib/systemd/system/cilknow-broker.service"
install -D -m 0644 "$ex/systemd/cilknow-nodemanager.service" \
    "$stage/lib/systemd/system/cilknow-nodemanager.service"
for s in cilknow-broker cilknow-nodemanager; do
	install -D -m 0755 "$ex/init.d/$s" "$stage/etc/init.d/$s"
	install -D -m 0644 "$ex/default/$s" "$stage/etc/default/$s"
done
install -D -m 0644 "$ex/logrotate.d/cilknow" "$stage/etc/logrotate.d/cilknow"
# Debian policy: binaries stripped, man pages and changelog gzipped -9n (changelog.gz: a native package).
for f in "$stage"/usr/sbin/* "$stage"/usr/bin/*; do
	strip --strip-unneeded --remove-section=.comment \
	    --remove-section=.note "$f"
done
find "$stage/usr/share/man" -type f -exec gzip -9n {} +
# A page that is a link to another (fib.1 -> queens.1) follows it.
find "$stage/usr/share/man" -type l | while read -r l; do
	t=$(readlink "$l")
	rm "$l"
	ln -s "$t.gz" "$l.gz"
done
# cilknow-x11: the X11 viewer, out of the main package.
xstage=$build/deb/x11
mkdir -p "$xstage/usr/bin" "$xstage/usr/share/man/man1"
mv "$stage/usr/bin/xCilkNodeInfo" "$xstage/usr/bin/"
mv "$stage/usr/share/man/man1/xCilkNodeInfo.1.gz" "$xstage/usr/share/man/man1/"
date=$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}")
for p in cilknow cilknow-x11; do
	[ "$p" = cilknow ] && doc=$stage/usr/share/doc/$p ||
	    doc=$xstage/usr/share/doc/$p
	mkdir -p "$doc"
	install -m 0644 "$top/conf/debian/copyright" "$doc/copyright"
	printf '%s (%s) unstable; urgency=medium\n\n  * Built from the source tree.\n\n -- cilknow maintainers <cilknow@example.org>  %s\n' \
	    "$p" "$version" "$date" | gzip -9n >"$doc/changelog.gz"
done
mkdir -p "$stage/DEBIAN"
for f in postinst prerm postrm; do
	install -m 0755 "$top/conf/debian/$f" "$stage/DEBIAN/$f"
done
(cd "$stage" && find etc -type f | sed 's|^|/|' | sort) >"$stage/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
depends=$(dpkg-query -W -f='libc6 (>= ${Version}), ' libc6 | sed 's/[-+].*)/)/')
sodium=$(dpkg-query -W -f='${Version}' libsodium23 | sed 's/-.*//')
bsd=$(dpkg-query -W -f='${Version}' libbsd0 | sed 's/-.*//')
systemd=$(dpkg-query -W -f='${Version}' libsystemd0 | sed 's/-.*//')
cairo=$(dpkg-query -W -f='${Version}' libcairo2 | sed 's/-.*//')
x11=$(dpkg-query -W -f='${Version}' libx11-6 | sed 's/-.*//')
fc=$(dpkg-query -W -f='${Version}' libfontconfig1 | sed 's/-.*//')
munge=$(dpkg-query -W -f='${Version}' libmunge2 | sed 's/-.*//')
sqlite=$(dpkg-query -W -f='${Version}' libsqlite3-0 | sed 's/-.*//')
libs="libsodium23 (>= $sodium), libbsd0 (>= $bsd), libsystemd0 (>= $systemd), libmunge2 (>= $munge), libsqlite3-0 (>= $sqlite)"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" \
    -e "s|@DEPENDS@|${depends}$libs, passwd, procps|" \
    "$top/conf/debian/control.in" >"$stage/DEBIAN/control"
mkdir -p "$xstage/DEBIAN"
xsize=$(du -sk --exclude=DEBIAN "$xstage" | cut -f1)
sed -e "s|@VERSION@|$version|g" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$xsize|" \
    -e "s|@DEPENDS@|cilknow (= $version), ${depends}$libs, libcairo2 (>= $cairo), libx11-6 (>= $x11), libfontconfig1 (>= $fc)|" \
    "$top/conf/debian/control-x11.in" >"$xstage/DEBIAN/control"
for s in "$stage" "$xstage"; do
	(cd "$s" && find . -path ./DEBIAN -prune -o -type f -print |
	    sed 's|^\./||' | sort | xargs md5sum) >"$s/DEBIAN/md5sums"
	chmod 0644 "$s/DEBIAN/md5sums" "$s/DEBIAN/control"
done
chmod 0644 "$stage/DEBIAN/conffiles"
deb=$out/cilknow_${version}_$arch.deb
# CILKNOW_DEB_XZ: xz's level (dpkg-deb's default, 6, for the packages
# we ship; the package test's sanitized programs take 17 s at 6, 2 at 1)
z=-z${CILKNOW_DEB_XZ:-6}
dpkg-deb --root-owner-group -Zxz "$z" --build "$stage" "$deb" >/dev/null
dpkg-deb --root-owner-group -Zxz "$z" --build "$xstage" \
    "$out/cilknow-x11_${version}_$arch.deb" >/dev/null
echo "$deb"
