#!/bin/bash
# make demo: a cilknow cluster of 4 workstations on this machine, a
# parallel job spread over it, the inspection tools, and an owner who
# comes back to her workstation — narrated.
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
D=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-demo.XXXXXX")
RUN=
finish() {
	[ -n "$RUN" ] && kill -INT "$RUN" 2>/dev/null && wait "$RUN" 2>/dev/null
	"$B/CilkLocal" stop -d "$D/cluster" >/dev/null 2>&1
	rm -rf "$D"
}
trap finish EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
pause() { sleep "${DEMO_PAUSE:-2}"; }

say "1. A cluster on loopback: a broker on 127.0.0.1, workstations 127.0.0.2-5"
echo "CilkLocal makes the keys and the configuration, and starts the daemons."
echo "Each workstation's idleness comes from a sensor file we can edit."
run "$B/CilkLocal" start -n 4 -d "$D/cluster" -p 17400 \
    -o register_interval=2 -o stop_grace=2 || exit 1
export CILKNOW_CONF=$D/cluster/cilknow.conf
for _ in $(seq 100); do
	[ "$("$B/CilkNodes" -s idle 2>/dev/null | tail -n +2 | wc -l)" -eq 4 ] && break
	sleep 0.1
done
run "$B/CilkNodes"

say "2. A job: every recruited workstation runs one instance of a program"
echo "CilkRun registers it with the broker; idle workstations fetch its"
echo "signed description straight from its job manager and start a worker."
cat >"$D/work.sh" <<'EOS'
#!/bin/sh
# One instance: a little computation, reporting where it runs.
i=1
while [ $i -le 12 ]; do
	echo "step $i of 12 on $CILKNOW_NODE (task $CILKNOW_TASK)"
	sleep 1
	i=$((i + 1))
done
EOS
chmod 755 "$D/work.sh"
printf '$ %s\n' "CilkRun -- $D/work.sh &"
cd "$D" || exit 1
"$B/CilkRun" -- "$D/work.sh" &
RUN=$!
sleep 3

say "3. What runs where"
run "$B/CilkPs"
run "$B/CilkNodes"
pause

say "4. The owner of 127.0.0.3 comes back: her workstation is hers again"
run sh -c "echo idletime=0 > $D/cluster/nodes/127.0.0.3/sensors"
echo "(the node manager notices within a second and stops its worker)"
sleep 3
run "$B/CilkNodes"
run "$B/CilkPs"
pause

say "5. Ctrl-C on CilkRun ends the job on every workstation"
kill -INT "$RUN"
wait "$RUN"
echo "(CilkRun exited with status $?: 130 means interrupted)"
RUN=
sleep 2
run "$B/CilkPs"
run "$B/CilkNodes"

say "6. The cluster goes away, leaving no process behind"
run "$B/CilkLocal" stop -d "$D/cluster"
say "Done. 'make check' runs the tests, 'make bench' the benchmarks."
