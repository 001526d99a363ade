#!/bin/bash
# Benchmark: what authorising a job registration and a job description
# costs under the munge user scheme (a credential from munged, decoded
# by munged) against the Ed25519 user scheme, measured in the same run
# with a private munged (its own key and socket in a temporary folder).
#   tests/bench/auth.sh BUILD
set -u
TOOL=$1/tests/auth_bench
N=${BENCH_AUTH:-2000}
command -v munged >/dev/null 2>&1 ||
    { echo "bench: auth: skipped, munged is not installed" >&2; exit 0; }
[ -x "$TOOL" ] || { echo "bench: auth: build $TOOL (make testprogs)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
chmod 755 "$T"	# munged wants every folder above its socket searchable
trap '[ -s "$T/pid" ] && kill "$(cat "$T/pid")" 2>/dev/null; rm -rf "$T"' EXIT
dd if=/dev/urandom of="$T/key" bs=1024 count=1 2>/dev/null
chmod 600 "$T/key"
set -- --socket="$T/socket" --key-file="$T/key" --pid-file="$T/pid" \
    --log-file="$T/log" --seed-file="$T/seed" --num-threads=2
munged "$@" 2>/dev/null || munged -f "$@" || exit 1
for _ in $(seq 200); do [ -S "$T/socket" ] && break; sleep 0.05; done
echo "bench: auth: $N registrations and descriptions under each scheme" >&2
"$TOOL" "$T/socket" "$N" >"$T/out.json" || exit 1
python3 - "$T/out.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("authorising a user's request: munge vs Ed25519 (us per operation, one run)")
print("%-13s %-6s %10s %10s %10s %8s" % ("what", "scheme", "seal", "open",
      "total", "x user"))
for what, label in (("reg", "registration"), ("desc", "description")):
    base = sum(r[what]["user"])
    for s in ("user", "munge"):
        seal, opn = r[what][s]
        print("%-13s %-6s %10.1f %10.1f %10.1f %8.2f" % (label, s, seal, opn,
              seal + opn, (seal + opn) / base))
PY
