#!/bin/bash
# CilkHist's CPU seconds and peak memory, measured on the node by the
# launch pad (CilkLaunchPad(8), Usage) and carried with the exit status
# to the job manager and the broker's history, on a 1-node CilkLocal
# cluster, twice: with the containment the host offers (cgroup = auto:
# a cgroup v2 if there is one, its cpu.stat and memory.peak where it has
# them), then with the process-tree fallback (cgroup = none: the launch
# pad's getrusage of what it reaped):
#  1. a task that touches 200 MiB and spins for 0.6 s of CPU: CilkHist
#     -j --json shows at least 0.5 s and 150 MiB (and under 10 GiB),
#     the text table the same figures;
#  2. a task that exits at once: small figures;
#  3. CPU used by an orphan of the task (double fork), which the launch
#     pad reaps as its subreaper (or its cgroup holds), is counted.
# Workers run at nice 19 (not SCHED_IDLE here: on a loaded machine that
# starves them), so the time limits are generous, and they burn little.
# ports: 20000-20019
. "$(dirname "$0")/lib.sh"
D=$T/cluster
export CILKNOW_SBIN=$SBIN
PORT=20000
export CILKNOW_CONF=$D/cilknow.conf
cd "$T" || exit 1
H=$BIN/CilkHist
trap '"$BIN/CilkLocal" stop -d "$D" >/dev/null 2>&1; cleanup' EXIT
nodes_are() { test "$("$BIN/CilkNodes" -s "$1" | tail -n +2 | wc -l)" -eq "$2"; }
jobno() { sed -n 's/.*job \([0-9]*\) registered.*/\1/p' "$1" | head -1; }
# has_task JOB : CilkHist -j JOB lists task 0
has_task() {
	"$H" -j "$1" 2>/dev/null | awk 'NF == 0 { t = 1; next }
	    t && $1 == 0 { f = 1 } END { exit !f }'
}
# usage JOB CHECK : CilkHist -j JOB --json, task 0's cpu and maxrss_kb
# passed to the Python expression CHECK (c in seconds, m in KiB)
usage() {
	"$H" -j "$1" --json >"$T/h$1.json" 2>&1 &&
	python3 - "$T/h$1.json" "$2" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x in d["tasks"] if x["task"] == 0][0]
c, m = t["cpu"], t["maxrss_kb"]
print("# task 0: cpu %r s, maxrss_kb %r" % (c, m))
sys.exit(0 if c is not None and m is not None and eval(sys.argv[2]) else 1)
EOP
}

cat >"$T/orphan.sh" <<EOS
#!/bin/sh
( ("$TOOLS/usage_burn" 600 0 >/dev/null; touch "\$1") & )
n=0
while [ ! -e "\$1" ] && [ \$n -lt 3000 ]; do
	sleep 0.1
	n=\$((n + 1))
done
[ -e "\$1" ]
EOS
chmod 755 "$T/orphan.sh"

# scenario CGROUP : a cluster with that cgroup setting, and the three
scenario() {
	local m=$1 j1 j2 j3
	"$BIN/CilkLocal" start -n 1 -d "$D" -p $PORT -o register_interval=1 \
	    -o stop_grace=1 -o timeout=2 -o worker_sched_idle=no \
	    -o cgroup="$m" >"$T/start-$m.out" 2>&1
	exit_is $? 0 "[$m] CilkLocal start -n 1, cgroup = $m"
	wait_for 15 nodes_are idle 1
	ok $? "[$m] 1 idle node"
	grep -h "workers: " "$D"/nodes/*/log | sed 's/^/# /'

	# 1. 0.6 s of CPU, 200 MiB.
	"$BIN/CilkRun" -t 400 -- "$TOOLS/usage_burn" 600 200 \
	    >"$T/r1-$m.out" 2>"$T/r1-$m.err"
	exit_is $? 0 "[$m] a task that burns 0.6 s of CPU, touches 200 MiB"
	grep -q "used [0-9]* ms of CPU, touched 200 MiB" "$T/r1-$m.out"
	ok $? "[$m] ... and says so"
	j1=$(jobno "$T/r1-$m.err")
	wait_for 10 has_task "$j1"
	ok $? "[$m] its task is in the history (job $j1)"
	usage "$j1" 'c >= 0.5 and 150 * 1024 <= m < 10 * 1024 * 1024'
	ok $? "[$m] --json: cpu >= 0.5 s, 150 MiB <= maxrss_kb < 10 GiB"
	"$H" -j "$j1" >"$T/h1-$m.out" 2>&1
	awk 'NF == 0 { t = 1; next } t && $1 == 0 && $(NF - 1) + 0 >= 0.5 &&
	    $NF ~ /^[0-9]+K$/ && $NF + 0 >= 150 * 1024 { f = 1 }
	    END { exit !f }' "$T/h1-$m.out"
	ok $? "[$m] the task table's CPU and MAXRSS columns say the same"

	# 2. A task that exits at once.
	"$BIN/CilkRun" -t 60 -- true >"$T/r2-$m.out" 2>"$T/r2-$m.err"
	exit_is $? 0 "[$m] a task that exits at once"
	j2=$(jobno "$T/r2-$m.err")
	wait_for 10 has_task "$j2"
	ok $? "[$m] its task is in the history (job $j2)"
	usage "$j2" 'c < 0.5 and 0 < m < 100 * 1024'
	ok $? "[$m] --json: small figures (cpu < 0.5 s, maxrss_kb < 100 MiB)"

	# 3. An orphan's CPU: the task double-forks a burner and waits for
	# its word, then exits; the burner is no child of the task's.
	"$BIN/CilkRun" -t 400 -- "$T/orphan.sh" "$T/orphan-$m.done" \
	    >"$T/r3-$m.out" 2>"$T/r3-$m.err"
	exit_is $? 0 "[$m] a task whose orphan burns 0.6 s of CPU"
	j3=$(jobno "$T/r3-$m.err")
	wait_for 10 has_task "$j3"
	ok $? "[$m] its task is in the history (job $j3)"
	usage "$j3" 'c >= 0.5'
	ok $? "[$m] --json: the orphan's CPU is counted (cpu >= 0.5 s)"

	"$BIN/CilkLocal" stop -d "$D" >"$T/stop-$m.out" 2>&1
	exit_is $? 0 "[$m] CilkLocal stop"
	rm -rf "$D"
}

scenario auto
scenario none
finish
