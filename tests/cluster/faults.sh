# Sourced by tests/cluster/run.sh once the three nodes are idle, munge
# set up and bob known everywhere: what an administrator must be able
# to trust when one node goes wrong (issue 28), on the booted
# containers, and what needs systemd as PID 1 and the kernel's cgroups
# (issue 26).  Each case breaks one node, runs a job that must end
# correctly on the others, looks for the reason where an administrator
# would (CilkNodes -R, CilkRun's output, the journal) and prints how
# long the job took (a comment, never asserted):
#  1. a user missing on hawk: carol's jobs end on falcon and vulture;
#     after node_fault_limit (3) starts hawk is down, "user carol
#     unknown";
#  2. a wrong cluster key, then a clock 10 minutes fast (libfaketime in
#     the node manager's unit), on vulture: its journal names the cause
#     at warning priority, the broker gives it no work and names it as
#     it forgets it;
#  3. hawk's spool full (a small tmpfs on state_dir): hawk goes down,
#     "no space left", the job's tasks run elsewhere;
#  4. vulture leaves mid-job as cilknow(7) says (CilkNodeManager -k;
#     systemctl disable --now): its task runs again elsewhere at once;
#  5. the broker restarted mid-job: CilkPs and CilkNodes answer at once
#     and the job ends correctly;
#  6. hawk's node manager restarted while it stops a worker: no launch
#     pad and no worker folder is left;
#  7. systemctl reload under systemd: a broken configuration refused at
#     error priority with its line, the daemon untouched; a key that
#     needs a restart named at warning priority;
#  8. a worker's memory limit (--mem) held by the kernel: memory.max of
#     the worker's cgroup, a worker past it killed; skipped, with the
#     node manager's words, where the containers get no cgroup v2
#     with a memory controller.
# Shared with run.sh: on, as, ok, skip, wait_for, state_is, idle3,
# worker, no_workers, mainpid, diag, $work, $net, ${addr[@]}.

secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
show() { sed 's/^/#   | /' "$@"; }
ip_of() { echo "$net.${addr[$1]}"; }
# all_done ERRFILE N : CilkRun said the job ended with its N tasks done
all_done() { grep -q "ends: all tasks done ($2 done, 0 failed" "$1"; }
# ran_on OUTFILE NODE : a task printed "... on NODE"
ran_on() { grep -q " on $2\$" "$1"; }
# held NODE STATE REGEX : CilkNodes -R lists NODE in STATE, reason REGEX
held() {
	on falcon "CilkNodes -n -R" 2>/dev/null | awk -v a="$(ip_of "$1")" \
	    -v s="$2" '$2 == a && $3 == s' | grep -Eq -- "$3"
}
# Seconds since the broker last heard NODE (CilkNodes -n, SEEN).
seen_of() {
	on falcon "CilkNodes -n" 2>/dev/null | awk -v a="$(ip_of "$1")" \
	    '$2 == a { print $NF }'
}
# quiet NODE : the broker has not heard it for more than 1.25
# register intervals (it gives it no new work), or forgot it.
quiet() {
	local s
	state_is "$1" down && return 0
	s=$(seen_of "$1")
	[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s + 0 >= 7) }'
}
resume() {	# resume NODE : as root, the cluster's administrator
	on falcon "CilkNodes resume $(ip_of "$1")" >"$work/resume-$1.out" 2>&1
}
journal_has() {	# journal_has NODE UNIT PRIORITY REGEX
	on "$1" "journalctl -q -p $3 -u cilknow-$2" | grep -Eq -- "$4"
}
# (Inside the single quotes of a command that as runs.)
TASK='echo task $CILKNOW_TASK attempt $CILKNOW_ATTEMPT on $CILKNOW_NODE'
# job USER NAME TASKS : a job of TASKS short tasks, run from falcon;
# its output in $work/NAME.out and .err, its exit status returned.
job() {
	as falcon "$1" "cd && timeout 120 CilkRun --tasks $3 -- sh -c '$TASK; sleep 1'" \
	    >"$work/$2.out" 2>"$work/$2.err"
}

# ---- a register interval of 5 s, stop_grace 3 s, everywhere ----------
faults_t0=$(date +%s.%N)
on falcon "printf 'register_interval = 5\nstop_grace = 3\n' >> /etc/cilknow/cilknow.conf" &&
    for n in hawk vulture; do
	on falcon "cd /etc/cilknow && tar -cf - cilknow.conf" |
	    on "$n" "tar -C /etc/cilknow -xpf -" || break
    done && on falcon "systemctl restart cilknow-broker cilknow-nodemanager" &&
    on hawk "systemctl restart cilknow-nodemanager" &&
    on vulture "systemctl restart cilknow-nodemanager" &&
    wait_for 30 idle3
ok $? "faults: register_interval = 5, stop_grace = 3 everywhere, restarted; three idle nodes"

# ---- 1. a user missing on one node -------------------------------------
for n in falcon vulture; do
	on "$n" "useradd -m -s /bin/sh carol" || ok 1 "useradd carol on $n"
done
t0=$(date +%s.%N)
k=0
while [ $k -lt 3 ] && ! state_is hawk down; do
	k=$((k + 1))
	job carol carol$k 6
	rc=$?
	echo "# 1: carol's job $k took $(secs "$t0") s"
	ok $rc "1: carol (on falcon and vulture, not hawk): job $k ends, exit 0" ||
	    show "$work/carol$k.err"
	all_done "$work/carol$k.err" 6 && ! ran_on "$work/carol$k.out" hawk
	ok $? "1: job $k: its 6 tasks done, none on hawk" ||
	    show "$work/carol$k.out" "$work/carol$k.err"
	t0=$(date +%s.%N)
	wait_for 6 state_is hawk down
done
grep -Eq "node [^ ]+: user carol unknown; task [0-9]+ (runs elsewhere|waits for another node)" \
    "$work/carol1.err"
ok $? "1: CilkRun names hawk and the reason: user carol unknown" ||
    show "$work/carol1.err"
wait_for 10 held hawk down "user carol unknown \(3 starts in a row\)"
ok $? "1: after $k jobs CilkNodes -R lists hawk down: user carol unknown (3 starts in a row)" ||
    on falcon "CilkNodes -R" | show
journal_has hawk nodemanager warning "this node is down: user carol unknown"
ok $? "1: hawk's journal says it is down and why (warning priority)"
resume hawk && wait_for 15 state_is hawk idle
ok $? "1: CilkNodes resume hawk: idle again" || show "$work/resume-hawk.out"

# ---- 2. a wrong cluster key on one node --------------------------------
t0=$(date +%s.%N)
on vulture "mkdir -p /root/good /root/other &&
    cp -p /etc/cilknow/cluster.key /etc/cilknow/cluster.pub /root/good/ &&
    CilkKey generate-cluster /root/other/cluster.key >/dev/null &&
    cp /root/other/cluster.key /root/other/cluster.pub /etc/cilknow/ &&
    systemctl restart cilknow-nodemanager"
ok $? "2: vulture gets a cluster key of its own; its node manager restarted"
# The broker answers nothing it cannot open: a message from the
# broker's host (CilkPing here) is what lets the node name the cause.
on falcon "CilkPing -n 2 -W 0.5 vulture.example.org:7411" >/dev/null 2>&1
wait_for 15 journal_has vulture nodemanager warning \
    "the broker .* is out of reach: its messages do not open with our cluster key"
ok $? "2: vulture's journal (warning priority): the broker's messages do not open with our cluster key" ||
    on vulture "journalctl -q -n 5 -u cilknow-nodemanager" | show
wait_for 15 quiet vulture
ok $? "2: the broker has not heard vulture for more than 1.25 register intervals ($(seen_of vulture) s)"
t1=$(date +%s.%N)
job ann key 4
rc=$?
echo "# 2: the job took $(secs "$t1") s"
ok $rc "2: ann's job ends, exit 0" || show "$work/key.err"
all_done "$work/key.err" 4 && ! ran_on "$work/key.out" vulture
ok $? "2: its 4 tasks done, none on vulture (given no work)" ||
    show "$work/key.out" "$work/key.err"
wait_for 20 journal_has falcon broker warning \
    "node [0-9]+ \(vulture at $net.13:[0-9]+\) silent for [0-9]+ s: forgotten"
ok $? "2: the broker names vulture as it forgets it" ||
    on falcon "journalctl -q -n 5 -u cilknow-broker" | show
wait_for 5 held vulture down "silent since"
ok $? "2: CilkNodes -R: vulture down, silent since ... ($(secs "$t0") s since the key changed)"
on vulture "cp -p /root/good/cluster.key /root/good/cluster.pub /etc/cilknow/ &&
    systemctl restart cilknow-nodemanager" && wait_for 20 state_is vulture idle
ok $? "2: its key back, vulture is idle again"

# ---- 2. a clock 10 minutes fast on one node ----------------------------
FT=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
DROPIN=/run/systemd/system/cilknow-nodemanager.service.d
if on vulture "test -f $FT"; then
	t0=$(date +%s.%N)
	skew=$(on vulture "echo \$(( \$(LD_PRELOAD=$FT FAKETIME=+600 date +%s) - \$(date +%s) ))")
	on vulture "mkdir -p $DROPIN && printf '[Service]\nEnvironment=LD_PRELOAD=$FT FAKETIME=+600 DONT_FAKE_MONOTONIC=1\n' > $DROPIN/skew.conf &&
	    systemctl daemon-reload && systemctl restart cilknow-nodemanager"
	[ $? -eq 0 ] && [ "${skew:-0}" -ge 599 ] && [ "$skew" -le 601 ]
	ok $? "2: vulture's node manager runs with its clock 600 s fast (libfaketime; $skew s)"
	on falcon "CilkPing -n 2 -W 0.5 vulture.example.org:7411" >/dev/null 2>&1
	wait_for 15 journal_has vulture nodemanager warning \
	    "the broker .* is out of reach: its messages carry our cluster key but are stamped -(599|60[0-9])\.[0-9] s from our clock"
	ok $? "2: vulture's journal (warning priority) names the skew: stamped -600 s from our clock" ||
	    on vulture "journalctl -q -n 5 -u cilknow-nodemanager" | show
	wait_for 15 quiet vulture
	ok $? "2: the broker has not heard vulture for more than 1.25 register intervals ($(seen_of vulture) s)"
	t1=$(date +%s.%N)
	job ann skew 4
	rc=$?
	echo "# 2: the job took $(secs "$t1") s"
	ok $rc "2: ann's job ends, exit 0" || show "$work/skew.err"
	all_done "$work/skew.err" 4 && ! ran_on "$work/skew.out" vulture
	ok $? "2: its 4 tasks done, none on vulture (given no work)" ||
	    show "$work/skew.out" "$work/skew.err"
	on vulture "rm -f $DROPIN/skew.conf && systemctl daemon-reload &&
	    systemctl restart cilknow-nodemanager" &&
	    wait_for 30 state_is vulture idle
	ok $? "2: its clock right again, vulture is idle again ($(secs "$t0") s)"
else
	skip "2: a clock skew: no libfaketime here to copy into the containers ($FT; make check-deps installs it)"
fi

# ---- 3. a full spool on one node ---------------------------------------
t0=$(date +%s.%N)
SD=/var/lib/cilknow
on hawk "rm -rf /root/state.saved && cp -a $SD /root/state.saved &&
    mount -t tmpfs -o size=2m,mode=0755 cilknow-spool $SD &&
    cp -a /root/state.saved/. $SD/ &&
    { dd if=/dev/zero of=$SD/fill bs=4k 2>/dev/null; true; } &&
    test \"\$(df -P $SD | awk 'NR == 2 { print \$4 }')\" -eq 0"
ok $? "3: hawk's $SD is a full 2 MiB tmpfs"
# The node manager's unit has a mount namespace of its own (a slave:
# the mount reaches it).
on hawk "nsenter -t \$(systemctl show -p MainPID --value cilknow-nodemanager) -m df -P $SD" |
    awk 'NR == 2 { exit !($4 == 0) }'
ok $? "3: and the node manager sees it full"
k=0
while [ $k -lt 3 ] && ! state_is hawk down; do
	k=$((k + 1))
	t1=$(date +%s.%N)
	job ann spool$k 6
	rc=$?
	echo "# 3: job $k took $(secs "$t1") s"
	ok $rc "3: ann's job $k ends, exit 0" || show "$work/spool$k.err"
	all_done "$work/spool$k.err" 6 && ! ran_on "$work/spool$k.out" hawk
	ok $? "3: job $k: its 6 tasks done, none on hawk" ||
	    show "$work/spool$k.out" "$work/spool$k.err"
	wait_for 6 state_is hawk down
done
grep -Eq "node [^ ]+: no space left in $SD .*; task [0-9]+ (runs elsewhere|waits for another node)" \
    "$work/spool1.err"
ok $? "3: CilkRun names hawk and the reason: no space left in $SD" ||
    show "$work/spool1.err"
wait_for 10 held hawk down "no space left in $SD .*\(3 starts in a row\)"
ok $? "3: after $k jobs CilkNodes -R lists hawk down: no space left ($(secs "$t0") s in all)" ||
    on falcon "CilkNodes -R" | show
on hawk "umount $SD || umount -l $SD" && resume hawk &&
    wait_for 15 state_is hawk idle
ok $? "3: room again, CilkNodes resume hawk: idle again"

# ---- 4. a node leaves mid-job ------------------------------------------
# Its tasks sleep 60 s on vulture on their first attempt, 2 s elsewhere.
as falcon ann "cd && exec timeout 120 CilkRun --tasks 6 -- sh -c '$TASK;
    if [ \$CILKNOW_ATTEMPT = 1 ] && [ \$CILKNOW_NODE = vulture ]; then exec sleep 60; fi;
    sleep 2'" >"$work/leave.out" 2>&1 &
run=$!
t0=$(date +%s.%N)
wait_for 30 grep -q "attempt 1 on vulture\$" "$work/leave.out"
ok $? "4: a task of ann's job runs on vulture" || show "$work/leave.out"
t1=$(date +%s.%N)
on vulture "CilkNodeManager -k && systemctl disable --now cilknow-nodemanager" \
    >"$work/leave-k.out" 2>&1
ok $? "4: vulture leaves: CilkNodeManager -k; systemctl disable --now cilknow-nodemanager" ||
    show "$work/leave-k.out"
for _ in $(seq 300); do
	kill -0 "$run" 2>/dev/null || break
	sleep 0.2
done
! kill -0 "$run" 2>/dev/null && wait "$run"
rc=$?
echo "# 4: the job ended $(secs "$t1") s after vulture began to leave ($(secs "$t0") s in all)"
ok $rc "4: the job ends, exit 0, well before its task on vulture would have" ||
    { kill "$run" 2>/dev/null; show "$work/leave.out"; }
all_done "$work/leave.out" 6
ok $? "4: its 6 tasks done"
grep -q "on vulture stopped by its node; it runs again" "$work/leave.out" &&
    ! grep -q "no word of it from its node" "$work/leave.out"
ok $? "4: CilkRun: the task on vulture was stopped by its node and ran again at once" ||
    show "$work/leave.out"
on vulture "systemctl enable --now cilknow-nodemanager" >/dev/null 2>&1 &&
    wait_for 30 state_is vulture idle
ok $? "4: vulture back (systemctl enable --now): idle"

# ---- 5. the broker restarted mid-job -----------------------------------
as falcon ann "cd && exec timeout 120 CilkRun --tasks 6 -- sh -c '$TASK; sleep 8; : restarted-broker'" \
    >"$work/brk.out" 2>&1 &
run=$!
t0=$(date +%s.%N)
job_listed() { on falcon "CilkPs" 2>/dev/null | grep -q "restarted-broker"; }
wait_for 30 job_listed && wait_for 20 grep -q "attempt 1 on" "$work/brk.out"
ok $? "5: ann's job runs"
on falcon "systemctl restart cilknow-broker"
ok $? "5: falcon: systemctl restart cilknow-broker"
t1=$(date +%s.%N)
wait_for 10 on falcon "CilkPs > /root/ps.first 2>&1" &&
    on falcon "CilkNodes -n > /root/nodes.first 2>&1"
answered=$(secs "$t1")
on falcon "grep -q restarted-broker /root/ps.first"
ok $? "5: the restarted broker's first CilkPs lists the job (answered $answered s after the restart)" ||
    on falcon "cat /root/ps.first" | show
for n in $nodes; do
	on falcon "grep -q ' $(ip_of "$n") ' /root/nodes.first" || break
done
ok $? "5: and its first CilkNodes the three nodes" ||
    on falcon "cat /root/nodes.first" | show
for _ in $(seq 300); do
	kill -0 "$run" 2>/dev/null || break
	sleep 0.2
done
! kill -0 "$run" 2>/dev/null && wait "$run"
rc=$?
echo "# 5: the job took $(secs "$t0") s"
ok $rc "5: the job ends, exit 0" || { kill "$run" 2>/dev/null; show "$work/brk.out"; }
all_done "$work/brk.out" 6 && ! grep -qi "no such job" "$work/brk.out"
ok $? "5: its 6 tasks done; nobody told \"no such job\"" || show "$work/brk.out"

# ---- 6. a node manager restarted while it stops a worker ---------------
wait_for 30 idle3
# The worker ignores SIGTERM: its stop lasts stop_grace (3 s).
as falcon ann "echo \$\$ > /tmp/left.pid && exec CilkRun -- sh -c 'trap \"\" TERM;
    echo up on \$CILKNOW_NODE; while :; do sleep 1; done'" >"$work/left.out" 2>&1 &
run=$!
wait_for 30 grep -q "up on hawk" "$work/left.out" && wait_for 10 worker hawk
ok $? "6: a job of ann's whose workers ignore SIGTERM runs on hawk"
stops() { on hawk "journalctl -q -u cilknow-nodemanager" | grep -c "stopping worker"; }
stops_over() { [ "$(stops)" -gt "$1" ]; }
before=$(stops)
t0=$(date +%s.%N)
on falcon "kill -INT \$(cat /tmp/left.pid)"
wait_for 10 stops_over "$before" &&
    on hawk "systemctl restart cilknow-nodemanager"
ok $? "6: the job ends; hawk's node manager restarted while it stops the worker"
workers_folder_empty() {
	on "$1" "test -z \"\$(ls -A /var/lib/cilknow/workers 2>/dev/null)\""
}
left_none() {
	local n
	no_workers || return 1
	for n in $nodes; do workers_folder_empty "$n" || return 1; done
}
# left_what : what is left on each node, one line each, for a failure
left_what() {
	local n
	for n in $nodes; do
		echo "# $n: worker [$(worker "$n" | tr '\n' ' ')]" \
		    "launch pads [$(on "$n" "pgrep -x CilkLaunchPad" | tr '\n' ' ')]" \
		    "folders [$(on "$n" "ls -A /var/lib/cilknow/workers" | tr '\n' ' ')]"
	done
}
# The bound covers the slowest legitimate path: a restart (its -n check
# first), a launch pad slow to answer asked again (5 + 10 s), a job
# manager gone (3 register intervals, 15 s, before its worker is
# dropped), a stop's grace twice over (6 s): 45 s on a quiet machine.
wait_for 75 left_none
ok $? "6: no worker, no launch pad, no worker folder left on any node ($(secs "$t0") s)" ||
    { left_what; on hawk "journalctl -q -n 40 -u cilknow-nodemanager" | show
      on hawk "journalctl -q -u cilknow-nodemanager" > "$work/6-hawk.journal"; }
wait "$run" 2>/dev/null

# ---- 7. systemctl reload under systemd ---------------------------------
t0=$(date +%s.%N)
pid=$(mainpid hawk nodemanager)
on hawk "cp -p /etc/cilknow/cilknow.conf /root/cilknow.conf.good &&
    echo 'quantum = soon' >> /etc/cilknow/cilknow.conf"
! on hawk "systemctl reload cilknow-nodemanager" >/dev/null 2>&1
ok $? "7: hawk: systemctl reload with a broken configuration fails"
wait_for 5 journal_has hawk nodemanager err "cilknow\.conf:[0-9]+: .*quantum"
ok $? "7: the journal has the error at error priority, with its line" ||
    on hawk "journalctl -q -n 5 -u cilknow-nodemanager" | show
# Idle within a registration: step 6 restarted it just before.
[ "$(mainpid hawk nodemanager)" = "$pid" ] &&
    on hawk "systemctl is-active -q cilknow-nodemanager" &&
    wait_for 15 state_is hawk idle
ok $? "7: the node manager runs on, untouched, and idle" ||
    { on falcon "CilkNodes -n" 2>&1 | show
      on hawk "journalctl -q -n 15 -u cilknow-nodemanager" | show; }
on hawk "cp -p /root/cilknow.conf.good /etc/cilknow/cilknow.conf &&
    echo 'stop_grace = 4' >> /etc/cilknow/cilknow.conf &&
    systemctl reload cilknow-nodemanager"
ok $? "7: a good configuration with stop_grace changed: systemctl reload"
wait_for 10 journal_has hawk nodemanager warning \
    "reload: stop_grace changed from '3' to '4'; it needs a restart"
ok $? "7: journalctl -p warning: stop_grace needs a restart ($(secs "$t0") s)" ||
    on hawk "journalctl -q -n 5 -u cilknow-nodemanager" | show
on hawk "cp -p /root/cilknow.conf.good /etc/cilknow/cilknow.conf &&
    systemctl reload cilknow-nodemanager"
ok $? "7: the configuration back, reloaded"

# ---- 8. a worker's memory held by the kernel ---------------------------
mech=$(on hawk "journalctl -q -u cilknow-nodemanager" | grep -o "workers: .*" | tail -1)
echo "# 8: hawk's node manager: $mech"
if grep -q "cgroup v2 at .*memory" <<<"$mech"; then
	wait_for 30 idle3
	t0=$(date +%s.%N)
	as falcon ann "cd && timeout 60 CilkRun --tasks 1 --mem 64M -- sh -c 'cat /proc/self/cgroup;
	    cat /sys/fs/cgroup\$(sed -n \"s/^0:://p\" /proc/self/cgroup)/memory.max'" \
	    >"$work/memmax.out" 2>&1
	ok $? "8: a job of --mem 64M ends" || show "$work/memmax.out"
	grep -q "^\[[a-z]*\] 0::.*w-j" "$work/memmax.out" &&
	    grep -q "^\[[a-z]*\] 67108864\$" "$work/memmax.out"
	ok $? "8: its worker runs in a cgroup of its own, memory.max 64 MiB" ||
	    show "$work/memmax.out"
	as falcon ann "cd && timeout 60 CilkRun --tasks 1 --retries 1 --mem 64M -- dd if=/dev/zero of=/dev/null bs=256M count=1" \
	    >"$work/oom.out" 2>&1
	rc=$?
	echo "# 8: the job took $(secs "$t0") s"
	[ $rc -ne 0 ] && grep -q "signal 9" "$work/oom.out"
	ok $? "8: a worker of --mem 64M that takes 256 MiB is killed by the kernel (signal 9)" ||
	    show "$work/oom.out"
	wait_for 10 no_workers
	ok $? "8: nothing of it is left"
else
	skip "8: a worker's memory limit: the containers' node managers have no cgroup v2 with a memory controller here ($mech)"
fi

# ---- issue 28, item 7: no sd_notify warning from systemd --------------
for n in $nodes; do
	! on "$n" "journalctl -q" | grep -q "reception only permitted for main PID"
	ok $? "$n: systemd logged no notification refused from another PID"
done
echo "# faults.sh: $(secs "$faults_t0") s in all"
