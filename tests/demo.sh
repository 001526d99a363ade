#!/bin/bash
# make demo: a cilknow cluster of 4 workstations on this machine, a
# parallel job spread over it, the inspection tools, and an owner who
# comes back to her workstation — narrated.
set -u
build=$(cd "$1" && pwd)
B=$build/bin
export CILKNOW_SBIN=$build/sbin
D=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-demo.XXXXXX")
chmod 755 "$D"	# the daemons' service user reads what is in here
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

say "2. A parallel program: queens counts the solutions of 12 queens"
echo "It links the cilknow runtime: typed on this workstation it starts"
echo "computing at once, starts its clearinghouse (CilkChouse) and a job"
echo "manager that registers it, and idle workstations join in as workers."
echo "(-d 2000: every search takes 2 ms longer, standing for a bigger board)"
printf '$ %s\n' "queens -d 2000 12 &"
cd "$D" || exit 1
"$B/queens" -d 2000 12 >"$D/queens.out" 2>&1 &
RUN=$!
sleep 3
sed 's/^/    /' "$D/queens.out"

say "3. What runs where"
run "$B/CilkPs"
run "$B/CilkNodes"
pause

say "4. The owner of 127.0.0.3 comes back: her workstation is hers again"
run sh -c "echo idletime=0 > $D/cluster/nodes/127.0.0.3/sensors"
echo "(the node manager stops its worker with SIGQUIT; the worker hands"
echo " its unfinished work back to the clearinghouse and leaves)"
sleep 3
run "$B/CilkNodes"
run "$B/CilkPs"
pause

say "5. The answer: 14200, whoever computed which part"
for _ in $(seq 600); do
	kill -0 "$RUN" 2>/dev/null || break
	sleep 0.1
done
wait "$RUN"
echo "(queens exited with status $?)"
RUN=
sed 's/^/    /' "$D/queens.out"
echo "The worker on 127.0.0.3 'handed its work back and left'; its pieces"
echo "were finished elsewhere, and every piece was counted exactly once."
pause

say "5b. A picture: mandelbrot's rows are computed wherever, put together here"
run "$B/mandelbrot" -s 320x240 -o "$D/set.ppm"
run ls -l "$D/set.ppm"

say "6. The cluster goes away, leaving no process behind"
run "$B/CilkLocal" stop -d "$D/cluster"
say "Done. 'make check' runs the tests, 'make bench' the benchmarks."
