#!/bin/bash
# Benchmark: containment of guest workers, on a 1-node CilkLocal cluster
# over loopback UDP (needs root: launch pads run as root, as deployed).
#  1. The owner returns (idletime=0 in the sensor file) -> every process
#     of the worker is gone (its cgroup has none), median and p99 over R
#     rounds, for a cooperative worker, one that ignores SIGQUIT
#     (stop_grace=1) and a setsid() escaper; the same from the node
#     manager's "the owner is back" (the 1 s sensor poll excluded).
#     Baseline, same run: the same program as a local process group,
#     stopped by kill -QUIT -PGID (escalated by hand for the ignorer);
#     for the escaper it shows the group kill missing the grandchild.
#  2. Owner interference: a CPU-bound and a memory-bound owner program
#     pinned to core 0, alone and with a spinning guest worker pinned to
#     the same core (run by the launch pad at nice 19 + SCHED_IDLE, in
#     its cgroup); beside a plain nice-0 spinner.  Ratios to alone.
#   tests/bench/contain.sh BUILD        (CONTAIN_ROUNDS=R, default 15)
set -u
build=$(cd "$1" && pwd)
B=$build/bin
H=$build/tests/hostile
export CILKNOW_SBIN=$build/sbin
R=${CONTAIN_ROUNDS:-15}
K=3				# owner program runs per figure (part 2)
PORT=$((${BENCH_PORT:-17400} + 460))	# tests/bench/run.sh
NODE=127.0.0.2
if [ "$(id -u)" -ne 0 ] || ! id cilknow >/dev/null 2>&1; then
	echo "contain: skipped (needs root and the service user cilknow)"
	exit 0
fi
[ -x "$H" ] || { echo "bench: no $H (make testprogs)" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-bench.XXXXXX")
# The node manager's engine runs as the service user: it reads the
# sensor file and its configuration in here.
chmod 755 "$T"
mkdir "$T/work" && chmod 777 "$T/work"
C=
CGBASE=
PIDS=			# every process started here, by pid
cleanup() {
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
	[ -n "$C" ] && "$B/CilkLocal" stop -d "$C" >/dev/null 2>&1
	# Empty worker cgroups the node manager left at its stop (rmdir
	# removes only empty ones); said, not hidden.
	if [ -n "$CGBASE" ] && [ -d "$CGBASE" ]; then
		left=$(find "$CGBASE" -mindepth 1 -maxdepth 1 -type d | wc -l)
		rmdir "$CGBASE"/w-* "$CGBASE" 2>/dev/null
		[ "$left" -gt 0 ] && echo "bench: the node manager left $left" \
		    "worker cgroup(s) in $CGBASE at its stop; removed the empty ones" >&2
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# Whatever a hostile process makes ends by itself within 120 s.
export HOSTILE_ALARM=120
ulimit -c 0			# no core dumps from SIGQUIT
now() { date +%s%N; }
poll() {	# poll TENTHS CMD... : until CMD succeeds, every 10 ms
	end=$(( $(now) + $1 * 100000000 )); shift
	while [ "$(now)" -lt "$end" ]; do "$@" && return 0; sleep 0.01; done
	return 1
}
die() { echo "bench: $*" >&2; exit 1; }
unlist() {	# unlist PID : reaped, out of PIDS (its number may be reused)
	n=
	for p in $PIDS; do [ "$p" = "$1" ] || n="$n $p"; done
	PIDS=$n
}
stop_pid() {	# stop_pid PID : TERM, at most 5 s, then KILL; reaped
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	unlist "$1"
}

# The poller: 0.25 ms between looks (its resolution), bounded in time;
# prints ns figures.
cat >"$T/watch.py" <<'PY'
import os, select, signal, subprocess, sys, time
ns = time.monotonic_ns
LIMIT = 20e9			# no loop runs longer than this
PERIOD = 0.00025			# s between looks

def cg(sensor, log, off, cgdir, gc):
    """Owner back: the flip, then until CGDIR has no process; the log
    line seen on the way.  Prints: gone log escaped (ns from the flip)."""
    procs = os.path.join(cgdir, "cgroup.procs")
    off, t_log, buf = int(off), -1, b""
    with open(sensor, "w") as f:
        f.write("idletime=0\n")
    t0 = ns()
    while ns() - t0 < LIMIT:
        t = ns()
        if t_log < 0:
            with open(log, "rb") as f:
                f.seek(off)
                buf += f.read()
            if b"the owner is back" in buf:
                t_log = t - t0
        try:
            with open(procs) as f:
                left = f.read().split()
        except OSError:		# ENOENT, ENODEV: the cgroup is removed
            left = []
        if not left:
            esc = int(gc != "-" and alive(int(gc)))
            print(t - t0, t_log, esc)
            return 0
        time.sleep(PERIOD)
    return 1

def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False

def pg(rounds, grace, pidfile, *cmd):
    """Baseline: ROUNDS local process groups of CMD, each stopped with
    SIGQUIT to the group (again at GRACE s, SIGKILL at 2 GRACE s when
    GRACE > 0), until no process of the group is left.  Prints: gone
    escaped, one line a round; kills what escaped by pid."""
    grace = float(grace)
    for _ in range(int(rounds)):
        if pidfile != "-" and os.path.exists(pidfile):
            os.unlink(pidfile)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             start_new_session=True)
        r, _, _ = select.select([p.stdout], [], [], 10)
        if not r or b"ready" not in p.stdout.readline():
            p.kill()
            return 1
        gc = int(open(pidfile).read()) if pidfile != "-" else 0
        t0 = ns()
        os.killpg(p.pid, signal.SIGQUIT)
        step = 1
        while ns() - t0 < LIMIT:
            t = ns()
            if grace > 0 and step == 1 and t - t0 >= grace * 1e9:
                os.killpg(p.pid, signal.SIGQUIT); step = 2
            if grace > 0 and step == 2 and t - t0 >= 2 * grace * 1e9:
                os.killpg(p.pid, signal.SIGKILL); step = 3
            p.poll()		# reaps the leader
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(PERIOD)
        else:
            return 1
        esc = int(gc > 0 and alive(gc))
        print(t - t0, -1, esc, flush=True)
        if gc > 0 and esc:
            os.kill(gc, signal.SIGKILL)
    return 0

sys.exit({"cg": cg, "pg": pg}[sys.argv[1]](*sys.argv[2:]))
PY

# --- 1. The owner returns -------------------------------------------
D=$T/c
C=$D
"$B/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
    -o stop_grace=1 -o timeout=3 >/dev/null || die "CilkLocal start"
export CILKNOW_CONF=$D/cilknow.conf
S=$D/nodes/$NODE/sensors
LOG=$D/nodes/$NODE/log
poll 100 grep -q "workers: " "$LOG" || die "no 'workers:' line in $LOG"
MECH=$(grep -m1 -o "workers: .*" "$LOG")
case "$MECH" in
*"cgroup v2 at "*) CGBASE=$(echo "$MECH" | sed -E 's/.*cgroup v2 at ([^ ]+).*/\1/') ;;
*) die "the workers are not in cgroups here ($MECH)" ;;
esac
idle() { "$B/CilkNodes" -s idle 2>/dev/null | grep -q "$NODE"; }
ready_pid() { sed -nE 's/.*ready pid=([0-9]+).*/\1/p' "$1" | head -n 1; }
cd "$T/work" || exit 1
export HOSTILE_PIDFILE=$T/work/gc.pid
round() {	# round OUT MODE [ARG] : a worker, the owner back, gone
	out=$1; shift
	poll 300 idle || die "the node did not come back idle"
	rm -f "$HOSTILE_PIDFILE" "$T/run.out"
	"$B/CilkRun" -- "$H" "$@" >"$T/run.out" 2>&1 &
	run=$!
	PIDS="$PIDS $run"
	poll 200 grep -qs "ready pid=" "$T/run.out" ||
	    die "no worker ($*): $(tail -n 3 "$T/run.out")"
	w=$(ready_pid "$T/run.out")
	cgdir=$(grep -lx "$w" "$CGBASE"/w-*/cgroup.procs 2>/dev/null | head -n 1)
	[ -n "$cgdir" ] || die "worker $w is in no cgroup under $CGBASE"
	gc=-
	[ "$1" = escape ] && gc=$(cat "$HOSTILE_PIDFILE")
	python3 "$T/watch.py" cg "$S" "$LOG" "$(stat -c %s "$LOG")" \
	    "$(dirname "$cgdir")" "$gc" >>"$out" ||
	    die "the worker's cgroup kept processes 20 s ($*)"
	stop_pid $run
	printf 'idletime=1000000\nload=0,0,0\n' >"$S"
}
for i in $(seq "$R"); do
	round "$T/c.sleep" sleep 600
	round "$T/c.ignore" ignore
	round "$T/c.escape" escape
	[ $((i % 5)) -eq 0 ] && echo "bench: round $i of $R" >&2
done
# Baselines: the same programs as local process groups.
python3 "$T/watch.py" pg "$R" 0 - "$H" sleep 600 >"$T/l.sleep" &&
python3 "$T/watch.py" pg "$R" 1 - "$H" ignore >"$T/l.ignore" &&
python3 "$T/watch.py" pg "$R" 0 "$HOSTILE_PIDFILE" "$H" escape \
    >"$T/l.escape" || die "a local baseline failed"

echo "owner returns -> every process of the worker gone (1 node, loopback, $R rounds)"
echo "  the node manager looks at the sensor file every 1 s while a worker runs:"
echo "  'from the flip' includes that poll; 'from the log line' starts when its"
echo "  line 'the owner is back' appears (the log has no timestamps: seen by the"
echo "  same poll, every 0.25 ms).  Baseline: a local process group, kill -QUIT -PGID."
python3 - "$T" <<'PY'
import sys
T = sys.argv[1]
def load(name):
    return [tuple(int(x) for x in l.split()) for l in open("%s/%s" % (T, name))
            if l.strip()]
def mp(v):
    v = sorted(v)
    return v[len(v) // 2] / 1e6, v[min(len(v) - 1, int(0.99 * len(v)))] / 1e6
print("%-44s %9s %9s %7s %7s" % ("", "median ms", "p99 ms", "escaped", "ratio"))
for kind, label, how in (
        ("sleep", "(a) cooperative (hostile sleep 600)", "QUIT"),
        ("ignore", "(b) ignores SIGQUIT, stop_grace=1", "QUIT/QUIT 1s/KILL 2s"),
        ("escape", "(c) setsid escaper (hostile escape)", "QUIT")):
    c, l = load("c." + kind), load("l." + kind)
    base = mp(x[0] for x in l)[0]
    rows = (("  cluster, from the flip", [x[0] for x in c], c),
            ("  cluster, from the log line",
             [x[0] - x[1] for x in c if x[1] >= 0], c),
            ("  baseline: local group, " + how, [x[0] for x in l], l))
    print(label)
    for name, v, src in rows:
        m, p = mp(v)
        print("%-44s %9.1f %9.1f %4d/%-2d %7.2f" % (name, m, p,
              sum(x[2] for x in src), len(src), m / base))
PY

# --- 2. Owner interference ------------------------------------------
read -r load _ </proc/loadavg
cat >"$T/owner.c" <<'EOC'
/* owner cpu N | owner mem MB PASSES : fixed work; prints its ns */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int
main(int argc, char **argv)
{
	struct timespec a, b;
	unsigned long sum = 0;
	if (argc < 3)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (strcmp(argv[1], "cpu") == 0) {
		volatile unsigned long x = 1;
		for (long i = atol(argv[2]); i > 0; i--)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		sum = x;
	} else {
		size_t sz = (size_t)atol(argv[2]) << 20, i;
		int k, passes = argc > 3 ? atoi(argv[3]) : 1;
		volatile unsigned char *p = malloc(sz);
		if (p == NULL)
			return 1;
		for (k = 0; k < passes; k++)	/* one byte a cache line */
			for (i = 0; i < sz; i += 64)
				p[i] += (unsigned char)(k + 1);
		for (i = 0; i < sz; i += 4096)
			sum += p[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
	    (b.tv_nsec - a.tv_nsec));
	fprintf(stderr, "%lu\n", sum);
	return 0;
}
EOC
${CC:-cc} -O2 -o "$T/owner" "$T/owner.c" || die "cc owner.c"
cpu() { taskset -c 0 "$T/owner" cpu 600000000 2>/dev/null; }
mem() { taskset -c 0 "$T/owner" mem 200 24 2>/dev/null; }
# K repetitions, each: alone, with the guest worker, with a plain
# nice-0 spinner started here (interleaved, so that drift in the
# machine's load hits all three alike).
guest() {	# guest : a spinning worker on core 0, started by the launch pad
	poll 300 idle || die "the node did not come back idle"
	rm -f "$T/run.out"
	"$B/CilkRun" -- taskset -c 0 "$H" spin >"$T/run.out" 2>&1 &
	run=$!
	PIDS="$PIDS $run"
	poll 200 grep -qs "spin ready pid=" "$T/run.out" ||
	    die "no spinning worker: $(tail -n 3 "$T/run.out")"
	w=$(ready_pid "$T/run.out")
}
cg_empty() { [ -z "$(cat "$1" 2>/dev/null)" ]; }
for k in $(seq "$K"); do
	for f in cpu mem; do $f >>"$T/$f.alone"; done
	guest
	pol=$(chrt -p "$w" 2>/dev/null | sed -nE 's/.*policy: *(.*)/\1/p' | head -n 1)
	nic=$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w"/stat 2>/dev/null)
	cgw=$(grep -lx "$w" "$CGBASE"/w-*/cgroup.procs 2>/dev/null | head -n 1)
	sleep 0.3
	for f in cpu mem; do $f >>"$T/$f.guest"; done
	stop_pid $run
	poll 100 cg_empty "$cgw" || die "the guest worker stayed"
	taskset -c 0 sh -c 'while :; do :; done' &
	sp=$!
	PIDS="$PIDS $sp"
	sleep 0.2
	for f in cpu mem; do $f >>"$T/$f.plain"; done
	kill -KILL $sp; wait $sp 2>/dev/null; unlist $sp
done
ctl=$(cat "$CGBASE/cgroup.controllers" 2>/dev/null)
echo
echo "owner interference with a busy worker under cgroup limits vs alone"
echo "  owner program and guest both pinned to core 0; median of $K, interleaved"
echo "  machine load average at the start: $load (other work on it skews these)"
echo "  guest worker pid $w: ${pol:-policy unknown}, nice ${nic:-?}, cgroup ${cgw%/cgroup.procs}"
if [ -z "$ctl" ] || [ ! -e "${cgw%/cgroup.procs}/cpu.weight" ]; then
	echo "  cgroup limits (cpu.weight, cpu.idle, memory.high) are NOT enforced here:"
	echo "  this machine's cgroup v2 at $(dirname "$CGBASE") has no controllers"
	echo "  (cgroup.controllers: '${ctl}'); the figures reflect nice 19 + SCHED_IDLE only."
else
	echo "  cgroup controllers in force: $ctl"
fi
python3 - "$T" <<'PY'
import sys
def med(name):
    v = sorted(int(l) for l in open("%s/%s" % (sys.argv[1], name)) if l.strip())
    return v[len(v) // 2]
ca, cw, cp, ma, mw, mp = (med(f + "." + c) for f in ("cpu", "mem")
                          for c in ("alone", "guest", "plain"))
print("%-52s %9s %7s" % ("", "owner ms", "ratio"))
for name, a, w, p in (("CPU-bound owner (6e8 LCG steps)", ca, cw, cp),
                      ("memory-bound owner (200 MB, 24 passes)", ma, mw, mp)):
    print(name)
    for label, v in (("  alone", a), ("  + guest worker (nice 19, SCHED_IDLE)", w),
                     ("  + plain nice-0 spinner (reference)", p)):
        print("%-52s %9.0f %7.2f" % (label, v / 1e6, v / a))
PY
