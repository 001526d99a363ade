#!/bin/sh
# Loopback ports: no two tests that may run at once share one (TAP).
#   tests/ports.sh [FILE...]   (default: every integration test and
#                               tests/valgrind.sh, which runs beside them)
# Every test that names a port says which it owns in its leading
# comment, in one line:
#   # ports: FIRST-LAST     (at most 100; its ports, all in that range)
#   # ports: netns          (it runs in a network namespace of its own)
# The ports a test names are read from its text: HOST:PORT (an IPv4
# address, localhost, [v6] or a *.org/.com name), /dev/udp/HOST/PORT,
# "-p PORT" and "--port PORT" (CilkLocal's and the chaos run's base:
# PORT and PORT+1), VAR=PORT where VAR ends in PORT (PORT and PORT+1,
# as most tests hand it to CilkLocal -p) and $((VAR + N)).  Ports below
# 1024 or above 65535 are not counted (not ours: "0:0", "-p 1"; no port
# at all: a usage error's "127.0.0.1:99999"), nor a line
# marked "# port-ok: WHY" (a port quoted in a message, never bound).  Fails on a
# port outside its test's range, on a test that names ports without a
# range, and on two ranges that overlap.  Ports a daemon picks itself
# (0: job managers, clearinghouses) are the kernel's and unchecked.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
	set -- "$top"/tests/integration/[0-9]*.sh "$top/tests/valgrind.sh"
fi
awk '
function fail(msg) { bad[++nbad] = msg }
function port(p, why) {
	p += 0
	if (p < 1024 || p > 65535 || (FILENAME, p) in at) return
	used[FILENAME] = used[FILENAME] " " p
	at[FILENAME, p] = FNR ": " why
}
FNR == 1 { files[++nfiles] = FILENAME; delete var; body = 0 }
/^# ports: / && !body {
	if (FILENAME in range) fail(FILENAME ": two \"# ports:\" lines")
	r = $3
	if (r == "netns") { range[FILENAME] = "netns"; next }
	if (r !~ /^[0-9]+-[0-9]+$/) {
		fail(FILENAME ": \"" $0 "\": want FIRST-LAST or netns"); next
	}
	split(r, ab, "-")
	if (ab[1] + 0 < 1024 || ab[1] + 0 > ab[2] + 0 || ab[2] - ab[1] >= 100 ||
	    ab[2] + 0 > 32767) {
		fail(FILENAME ": \"" $0 "\": want 1024 <= FIRST <= LAST < FIRST+100, below the ephemeral ports")
		next
	}
	range[FILENAME] = r; lo[FILENAME] = ab[1] + 0; hi[FILENAME] = ab[2] + 0
	next
}
!/^#/ { body = 1 }
/# port-ok: / { next }	# a port in a message, not one in use
{
	line = $0
	# VAR=PORT, VAR ending in PORT: the base, and the node port after it
	s = line
	while (match(s, /[A-Z_0-9]*PORT[0-9]*=[0-9]+/)) {
		t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		split(t, kv, "=")
		var[kv[1]] = kv[2] + 0
		port(kv[2], t); port(kv[2] + 1, t " (+1, the nodes)")
	}
	s = line
	while (match(s, /\$\(\( *[A-Z_0-9]*PORT[0-9]* *\+ *[0-9]+ *\)\)/)) {
		t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		u = t; gsub(/[$() ]/, "", u); split(u, kv, "+")
		if (kv[1] in var) port(var[kv[1]] + kv[2], t)
		else fail(FILENAME ":" FNR ": " t ": " kv[1] " is not set before")
	}
	s = line
	while (match(s, /([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+|localhost|\]|\.org|\.com):[0-9]+/)) {
		t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		n = t; sub(/.*:/, "", n); port(n, t)
	}
	s = line
	while (match(s, /\/dev\/udp\/[^\/ ]+\/[0-9]+/)) {
		t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		n = t; sub(/.*\//, "", n); port(n, t)
	}
	s = line
	while (match(s, /(^|[ \t])(-p|--port) +[0-9]+/)) {
		t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
		n = t; sub(/.* /, "", n); port(n, t); port(n + 1, t " (+1, the nodes)")
	}
}
END {
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (!(f in used)) continue
		if (!(f in range)) {
			split(used[f], ps, " ")
			fail(f ": names port " ps[1] " (line " at[f, ps[1]] ") but has no \"# ports:\" line")
			continue
		}
		if (range[f] == "netns") continue
		n = split(used[f], ps, " ")
		for (j = 1; j <= n; j++)
			if (ps[j] < lo[f] || ps[j] > hi[f])
				fail(f ": port " ps[j] " (line " at[f, ps[j]] ") is outside its ports " range[f])
	}
	for (i = 1; i <= nfiles; i++) {
		f = files[i]
		if (!(f in lo)) continue
		for (j = i + 1; j <= nfiles; j++) {
			g = files[j]
			if (!(g in lo)) continue
			if (lo[f] <= hi[g] && lo[g] <= hi[f])
				fail(f " (" range[f] ") and " g " (" range[g] ") share ports")
		}
	}
	for (i = 1; i <= nfiles; i++) {
		f = files[i]; k = f; sub(/.*\//, "", k)
		r = (f in range) ? range[f] : "none named"
		print "# " k ": " r
	}
	if (nbad == 0) {
		print "ok 1 - " nfiles " files: every port named is in its file'"'"'s range, and no two ranges overlap"
	} else {
		for (i = 1; i <= nbad; i++) {
			b = bad[i]; gsub(/[^ ]*\/tests\//, "tests/", b)
			print "not ok " i " - " b
		}
	}
	print "1.." (nbad == 0 ? 1 : nbad)
	exit (nbad != 0)
}' "$@"
