#!/bin/bash
# CilkLaunchPad driven through the lpad client library (tests/tools/
# lpad_driver): the worker's cwd, environment, nice level, process group
# and logs; exit status, signals, STOP's SIGQUIT-then-SIGKILL timing,
# exec failures, malformed control messages; surviving the death of its
# parent and re-adoption through lpad_list; and, as root, running the
# worker and itself as nobody and refusing what it must refuse.
# leaks: every program (the launch pad is what it tests)
. "$(dirname "$0")/lib.sh"
D=$TOOLS/lpad_driver
LP=$SBIN/CilkLaunchPad
R=$T/run
S=$T/state
C=$T/lpad.conf
ME=$(id -un)
chmod 755 "$T"
mkdir -p "$T/cwd dir"
printf 'stop_grace = 1\n' >"$C"
chmod 644 "$C"

# mkspec FILE WORKER USER CWD ARGV... : a spec file; $EXTRA adds lines.
mkspec() {
	f=$1 w=$2 u=$3 c=$4
	shift 4
	{
		echo "cilknow-lpad-spec 1"
		echo "# written by 0300-launchpad.sh"
		echo "worker $w"
		echo "job 42"
		echo "task 3"
		echo "node nodeA"
		echo "user $u"
		echo "cwd $c"
		if [ "$u" = root ] && [ -z "${NOROOT:-}" ]; then
			echo "allow_root 1"
		fi
		printf 'env PATH=/usr/bin:/bin\n'
		printf 'env ODD=a b\tc "q" x=y \xc3\xa9\n'
		[ -n "${EXTRA:-}" ] && printf '%s\n' "$EXTRA"
		for a in "$@"; do
			printf 'argv %s\n' "$a"
		done
		echo end
	} >"$f"
	chmod 644 "$f"
}

# spawn NAME SPECFILE [driver options] : sets LPID and WPID
spawn() {
	n=$1 f=$2
	shift 2
	"$D" spawn "$@" -c "$C" -b "$LP" -r "$R" -S "$S" "$f" >"$T/$n.sp" \
	    2>&1
	rc=$?
	LPID=$(sed -n 's/^lpad //p' "$T/$n.sp")
	WPID=$(sed -n 's/^worker //p' "$T/$n.sp")
	[ -n "$LPID" ] && PIDS="$PIDS $LPID"
	[ -n "$WPID" ] && PIDS="$PIDS $WPID"
	return $rc
}
field() {	# field FILE KEY
	sed -n "s/^$2 //p" "$1"
}
gone() {	# gone PID : the process has exited
	! kill -0 "$1" 2>/dev/null
}
now_ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

"$LP" -h >/dev/null 2>&1
exit_is $? 0 "-h answers with usage"
"$LP" -f >/dev/null 2>&1
exit_is $? 2 "no -s is a usage error"
printf 'cilknow-lpad-spec 1\nworker x\nend\n' >"$T/bad.spec"
"$LP" -n -c "$C" -s "$T/bad.spec" >"$T/bad.out" 2>&1
exit_is $? 1 "-n: an invalid spec is refused"
contains "$T/bad.out" 'no user name' "and says why"

# --- a worker's surroundings -------------------------------------------
EXTRA=$(printf 'rlimit_nofile 50\nrlimit_cpu 100\nrlimit_as 4096')
# w1 runs until the test has looked at it (the file go in its cwd, at
# most 60 s), not for a fixed time a loaded machine may outlast.
W1SH='echo "out $1"; echo "err $1" >&2; i=0; while [ ! -e go ] && '
W1SH=$W1SH'[ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; exit 3'
mkspec "$T/w1.spec" w1 "$ME" "$T/cwd dir" /bin/sh -c "$W1SH" sh 'two words'
EXTRA=
"$LP" -n -c "$C" -s "$T/w1.spec" >"$T/w1.n" 2>&1
exit_is $? 0 "-n accepts w1's spec"
"$LP" -n -c "$C" -s - <"$T/w1.spec" >"$T/w1.n" 2>&1
exit_is $? 0 "-s - reads it from standard input"
head -c 40 "$T/w1.spec" | "$LP" -n -c "$C" -s - >"$T/w1.n" 2>&1
exit_is $? 1 "-s -: a truncated spec is refused"
[ ! -e "$R" ]
ok $? "and creates nothing"
spawn w1 "$T/w1.spec"
exit_is $? 0 "spawn worker w1 through the client library"
tr '\0' ' ' <"/proc/$LPID/cmdline" | grep -q -- ' -s - ' &&
    [ -z "$(find "$R" "$S" -name '*.spec')" ]
ok $? "its spec came on standard input (-s -), no spec file was written"
[ "$(readlink "/proc/$LPID/fd/0")" = /dev/null ] &&
    [ "$(readlink "/proc/$WPID/fd/0")" = /dev/null ]
ok $? "the launch pad's and the worker's standard input: /dev/null again"
! ls -l "/proc/$LPID/fd" "/proc/$WPID/fd" 2>/dev/null | grep -q memfd:
ok $? "neither keeps the spec's memory file open"
[ "$(cat "$S/workers/w1/lpad.pid")" = "$LPID" ]
ok $? "lpad.pid holds the launch pad's pid"
[ -n "$WPID" ] && kill -0 "$WPID" 2>/dev/null
ok $? "the worker runs (pid $WPID)"
"$D" status "$R" w1 >"$T/w1.st"
contains "$T/w1.st" '^state running$' "STATUS says running"
contains "$T/w1.st" "^pgid $WPID\$" "the worker leads its own process group"
contains "$T/w1.st" '^job 42$' "STATUS carries the job id"
contains "$T/w1.st" '^cpu_ms none$' "no CPU time while it runs"
contains "$T/w1.st" '^maxrss_kb none$' "nor peak memory"
[ "$(awk '{print $6}' /proc/"$WPID"/stat)" = "$WPID" ]
ok $? "and its own session"
[ "$(awk '{print $19}' /proc/"$WPID"/stat)" = 19 ]
ok $? "nice 19 by default"
[ "$(readlink /proc/"$WPID"/cwd)" = "$T/cwd dir" ]
ok $? "cwd as the spec says (with a blank in it)"
[ "$(readlink /proc/"$WPID"/fd/0)" = /dev/null ]
ok $? "stdin is /dev/null"
contains /proc/"$WPID"/limits '^Max open files +50 +50 ' "rlimit_nofile 50"
contains /proc/"$WPID"/limits '^Max cpu time +100 +105 ' \
    "rlimit_cpu 100 (hard limit 5 s later)"
contains /proc/"$WPID"/limits '^Max address space +4294967296 +4294967296 ' \
    "rlimit_as 4096 MB"
tr '\0' '\n' </proc/"$WPID"/environ >"$T/w1.env"
contains "$T/w1.env" '^CILKNOW_JOB=42$' "CILKNOW_JOB"
contains "$T/w1.env" '^CILKNOW_TASK=3$' "CILKNOW_TASK"
contains "$T/w1.env" '^CILKNOW_NODE=nodeA$' "CILKNOW_NODE"
contains "$T/w1.env" "$(printf '^ODD=a b\tc "q" x=y \xc3\xa9$')" \
    "an env entry with blanks, a tab, quotes, '=' and UTF-8 arrives whole"
! grep -q '^CILKNOW_CONF\|^TERM=' "$T/w1.env"
ok $? "nothing else of our environment leaks in"
[ "$(ps -o ppid= -p "$LPID" | tr -d ' ')" != "$$" ]
ok $? "the launch pad is not the test's child"
[ "$(ps -o sid= -p "$LPID" | tr -d ' ')" = "$LPID" ]
ok $? "the launch pad has its own session"
touch "$T/cwd dir/go"
"$D" wait "$R" w1 10 >"$T/w1.end"
exit_is $? 0 "w1 ends"
contains "$T/w1.end" '^status exited 3$' "exit 3 is \"exited 3\""
contains "$T/w1.end" '^end_ms [1-9]' "with an end time"
contains "$T/w1.end" '^cpu_ms [0-9]+$' "its CPU time, measured"
contains "$T/w1.end" '^maxrss_kb [1-9][0-9]*$' "its peak memory, measured"
W1=$S/workers/w1
contains "$W1/status" '^exited 3$' "the status file says exited 3"
"$D" exit "$S" w1 >"$T/w1.ex"
contains "$T/w1.ex" '^status exited 3$' "lpad_read_exit reads it"
contains "$W1/out.log" '^out two words$' "stdout in out.log"
contains "$W1/err.log" '^err two words$' "stderr in err.log"
contains "$W1/spec" '^worker w1$' "the spec is kept as the record"
[ "$(cat "$W1/pid")" = "$WPID" ]
ok $? "the pid file holds the worker's pid"
"$D" log "$S" w1 out 4 >"$T/w1.log" 2>"$T/w1.next"
[ "$(cat "$T/w1.log")" = "two words" ]
ok $? "lpad_read_log from offset 4, in 7-byte steps"
contains "$T/w1.next" '^next 14$' "and it says where to go on"
"$D" quit "$R" w1
exit_is $? 0 "QUIT"
wait_for 5 gone "$LPID"
ok $? "the launch pad exits after QUIT"
[ ! -e "$R/lpad/w1.sock" ]
ok $? "and removes its socket"
[ ! -e "$W1" ]
ok $? "the ended worker's folder goes with its launch pad (bounded disk)"

# --- signals and malformed messages ------------------------------------
EXTRA=$(printf 'nice 5\nsched idle')
mkspec "$T/w2.spec" w2 "$ME" / /bin/sleep 30
EXTRA=
spawn w2 "$T/w2.spec"
exit_is $? 0 "spawn w2 (sleep 30)"
[ "$(awk '{print $19}' /proc/"$WPID"/stat)" = 5 ]
ok $? "nice 5 as the spec says"
[ "$(awk '{print $41}' /proc/"$WPID"/stat)" = 5 ]
ok $? "sched idle: the policy is SCHED_IDLE (5)"
"$D" signal "$R" w2 19
exit_is $? 0 "SIGNAL SIGSTOP"
wait_for 3 sh -c "awk '{print \$3}' /proc/$WPID/stat | grep -q T"
ok $? "the worker is stopped"
"$D" signal "$R" w2 18
wait_for 3 sh -c "awk '{print \$3}' /proc/$WPID/stat | grep -q S"
ok $? "SIGCONT: it runs again"
"$D" signal "$R" w2 11 >"$T/w2.sig" 2>&1
exit_is $? 1 "SIGSEGV is not on the list (refused by the library)"
"$D" raw "$R" w2 01020000000b >"$T/w2.raw"
contains "$T/w2.raw" '^closed$' "a raw SIGNAL 11 gets the connection closed"
"$D" raw "$R" w2 ff >"$T/w2.raw"
contains "$T/w2.raw" '^closed$' "a one-byte message too"
"$D" raw "$R" w2 0101ff >"$T/w2.raw"
contains "$T/w2.raw" '^closed$' "a STATUS with a trailing byte too"
"$D" raw "$R" w2 "0101$(head -c 600 /dev/zero | od -An -tx1 -v | tr -d ' \n')" \
    >"$T/w2.raw"
contains "$T/w2.raw" '^closed$' "an oversized message too"
"$D" raw "$R" w2 0101 >"$T/w2.raw"
contains "$T/w2.raw" '^reply [0-9]+ bytes$' \
    "a well-formed raw STATUS is answered"
kill -0 "$WPID" 2>/dev/null && kill -0 "$LPID" 2>/dev/null
ok $? "the launch pad and worker survive the garbage"
"$D" signal "$R" w2 9
exit_is $? 0 "SIGNAL SIGKILL"
"$D" wait "$R" w2 5 >"$T/w2.end"
contains "$T/w2.end" '^status signal 9$' "killed is \"signal 9\""
"$D" signal "$R" w2 15 2>"$T/w2.late"
exit_is $? 1 "a SIGNAL after the worker exited fails"
contains "$T/w2.late" 'No such process' "with ESRCH"
"$D" quit "$R" w2
wait_for 5 gone "$LPID"
ok $? "w2's launch pad exits"

# --- STOP: SIGQUIT, SIGQUIT after the grace, SIGKILL after twice it ----
# (at nice 0: at 19 its trap may not run within the grace on a busy
# machine, and the SIGQUITs it counts are the point here)
EXTRA="nice 0" mkspec "$T/w3.spec" w3 "$ME" / /bin/sh -c \
    'trap "echo got-quit" QUIT; echo ready; while :; do sleep 0.1; done'
spawn w3 "$T/w3.spec"
exit_is $? 0 "spawn w3 (ignores SIGQUIT)"
wait_for 5 grep -q ready "$S/workers/w3/out.log"
t0=$(now_ms)
"$D" stop "$R" w3 1
exit_is $? 0 "STOP with grace 1 s"
"$D" status "$R" w3 >"$T/w3.st"
contains "$T/w3.st" '^stopping 1$' "STATUS shows the stop under way"
"$D" wait "$R" w3 10 >"$T/w3.end"
t1=$(now_ms)
contains "$T/w3.end" '^status signal 9$' "SIGKILLed in the end"
el=$((t1 - t0))
[ "$el" -ge 1900 ]
ok $? "not before twice the grace (${el} ms)"
[ "$(grep -c got-quit "$S/workers/w3/out.log")" -ge 2 ]
ok $? "having had SIGQUIT twice"
"$D" quit "$R" w3

mkspec "$T/w4.spec" w4 "$ME" / /bin/sh -c \
    'trap "echo bye; exit 0" QUIT; echo ready; while :; do sleep 0.1; done'
spawn w4 "$T/w4.spec"
wait_for 5 grep -q ready "$S/workers/w4/out.log"
t0=$(now_ms)
"$D" stop "$R" w4 30
"$D" wait "$R" w4 10 >"$T/w4.end"
t1=$(now_ms)
contains "$T/w4.end" '^status exited 0$' "a worker that honours SIGQUIT exits 0"
[ $((t1 - t0)) -lt 3000 ]
ok $? "at once, not after the grace ($((t1 - t0)) ms)"
"$D" quit "$R" w4

# --- the parent dies; a new one re-adopts ------------------------------
mkspec "$T/w5.spec" w5 "$ME" / /bin/sleep 60
start w5drv "$D" spawn -w -c "$C" -b "$LP" -r "$R" -S "$S" "$T/w5.spec"
DRV=$LAST_PID
wait_for 10 grep -q '^driver ' "$T/w5drv.out"
ok $? "a driver spawns w5 and stays"
LPID=$(sed -n 's/^lpad //p' "$T/w5drv.out")
WPID=$(sed -n 's/^worker //p' "$T/w5drv.out")
PIDS="$PIDS $LPID $WPID"
kill -KILL "$DRV"
wait "$DRV" 2>/dev/null
sleep 0.3
kill -0 "$LPID" 2>/dev/null && kill -0 "$WPID" 2>/dev/null
ok $? "after kill -9 of the driver, launch pad and worker run on"
"$D" list "$R" >"$T/w5.list"
contains "$T/w5.list" "^w5 running pid $WPID lpad $LPID\$" \
    "a new driver finds w5 with lpad_list and reads its status"
contains "$T/w5.list" '^live 1$' "and only w5 is alive"
"$D" stop "$R" w5 1 && "$D" wait "$R" w5 5 >"$T/w5.end"
contains "$T/w5.end" '^status signal 3$' "the new driver stops it (SIGQUIT)"
"$D" quit "$R" w5
wait_for 5 gone "$LPID"
ok $? "and lets its launch pad go"

# --- exec and setup failures -------------------------------------------
mkspec "$T/w6.spec" w6 "$ME" / /nonexistent/program arg
spawn w6 "$T/w6.spec"
exit_is $? 0 "spawn w6 (a program that does not exist)"
"$D" wait "$R" w6 5 >"$T/w6.end"
contains "$T/w6.end" '^status exited 127$' "an exec failure is exit 127"
contains "$S/workers/w6/err.log" 'exec /nonexistent/program: No such file' \
    "with the reason in err.log"
"$D" quit "$R" w6
mkspec "$T/w7.spec" w7 "$ME" /nonexistent/dir /bin/true
# (-L 3: the WAIT below must reach it before it leaves, loaded or not)
spawn w7 "$T/w7.spec" -L 3
"$D" wait "$R" w7 5 >"$T/w7.end"
contains "$T/w7.end" '^status exited 126$' "a missing cwd is exit 126"
contains "$S/workers/w7/err.log" '/nonexistent/dir: No such file' \
    "with the reason in err.log"
wait_for 10 gone "$LPID"
ok $? "without QUIT, the launch pad leaves after the linger (-L 3)"
"$D" exit "$S" w7 >"$T/w7.ex"
contains "$T/w7.ex" '^status exited 126$' \
    "the status file outlives it (only QUIT takes the folder along)"

mkspec "$T/w10.spec" w10 "$ME" / /bin/true
spawn w10 "$T/w10.spec" -L 0
contains "$T/w10.sp" '^lpad [0-9]+$' \
    "spawn reports the pid even when the launch pad is gone at once (-L 0)"
wait_for 5 gone "$LPID"
contains "$S/workers/w10/status" '^exited 0$' "and the status is recorded"

# --- SIGTERM to the launch pad ------------------------------------------
mkspec "$T/w8.spec" w8 "$ME" / /bin/sleep 60
spawn w8 "$T/w8.spec"
kill -TERM "$LPID"
wait_for 5 gone "$LPID"
ok $? "SIGTERM: the launch pad stops the worker and exits"
gone "$WPID"
ok $? "the worker is gone"
contains "$S/workers/w8/status" '^signal 3$' "it got SIGQUIT"

# --- a second launch pad for the same worker ----------------------------
mkspec "$T/w9.spec" w9 "$ME" / /bin/sleep 60
spawn w9 "$T/w9.spec"
W9L=$LPID
spawn w9b "$T/w9.spec"
exit_is $? 1 "a second spawn for a live worker id fails"
contains "$T/w9b.sp" 'already running' "and says why"
"$LP" -f -c "$C" -o run_dir="$R" -o state_dir="$S" -s "$T/w9.spec" \
    >"$T/w9c.out" 2>&1
exit_is $? 1 "so does a second launch pad started by hand"
contains "$T/w9c.out" 'already running' "which says why"
"$D" stop "$R" w9 0 && "$D" quit "$R" w9
wait_for 5 gone "$W9L"
ok $? "w9 stopped with grace 0"

# --- root: users, refusals, dropping privileges -------------------------
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	UID4='^Uid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534'
	UID4="$UID4"'[[:space:]]+65534$'
	mkdir -p "$T/nb"
	chmod 755 "$T/nb"
	mkspec "$T/n1.spec" n1 nobody "$T/nb" /bin/sh -c \
	    'id -u; echo in-nobody >&2; exec sleep 30'
	spawn n1 "$T/n1.spec"
	exit_is $? 0 "as root: spawn a worker for nobody"
	wait_for 5 grep -q in-nobody "$S/workers/n1/err.log"
	contains "$S/workers/n1/out.log" '^65534$' "the worker's id -u is 65534"
	grep '^Uid:' /proc/"$WPID"/status >"$T/n1.wuid"
	contains "$T/n1.wuid" "$UID4" \
	    "the worker runs as nobody (real, effective, saved, fs)"
	grep '^Uid:\|^Gid:\|^Groups:' /proc/"$LPID"/status >"$T/n1.luid"
	contains "$T/n1.luid" '^Uid:[[:space:]]+0[[:space:]]+0' \
	    "the launch pad stays root: nothing the job runs can signal it"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    kill -STOP "$LPID" 2>/dev/null
	ok $((! $?)) "nobody (the job's user) cannot stop it"
	kill -CONT "$LPID"
	[ "$(stat -c %U:%a "$S/workers/n1")" = root:700 ] &&
	    [ "$(stat -c %U:%a "$S/workers/n1/out.log")" = root:600 ]
	ok $? "the worker's folder and logs are root's, not the job user's"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	    cat "$S/workers/n1/out.log" >/dev/null 2>&1
	ok $((! $?)) "the job's user cannot read them back (only the engine may)"
	[ "$(stat -c %U:%a "$R/lpad")" = root:700 ] &&
	    [ "$(stat -c %U "$R/lpad/n1.sock")" = root ]
	ok $? "the socket stays root's, in a mode 0700 folder"
	"$D" status "$R" n1 >"$T/n1.st"
	contains "$T/n1.st" '^user nobody$' \
	    "root talks to the dropped launch pad"
	"$D" stop "$R" n1 1 && "$D" wait "$R" n1 5 >"$T/n1.end"
	contains "$T/n1.end" '^status signal 3$' "and stops its worker"
	contains "$T/n1.end" '^status signal 3$' \
	    "the launch pad reports the status"
	"$D" quit "$R" n1
	wait_for 5 gone "$LPID"
	ok $? "and exits on QUIT"
	"$D" list "$R" >"$T/n1.list"
	contains "$T/n1.list" '^live 0$' "lpad_list finds nobody alive"
	[ ! -e "$R/lpad/n1.sock" ]
	ok $? "and removed the socket nobody could"

	NOROOT=1 mkspec "$T/r1.spec" r1 root / /bin/true
	spawn r1 "$T/r1.spec"
	exit_is $? 1 "as root: a spec for user root is refused"
	contains "$T/r1.sp" 'uid 0.*allow_root' "with the reason"
	[ ! -e "$R/lpad/r1.sock" ] && [ ! -e "$S/workers/r1" ]
	ok $? "before creating anything"
	"$LP" -f -c "$C" -o run_dir="$R" -o state_dir="$S" -s "$T/r1.spec" \
	    >"$T/r1.out" 2>&1
	exit_is $? 1 "CilkLaunchPad -f refuses it too"
	contains "$T/r1.out" 'refusing worker r1: user root has uid 0' \
	    "and logs why"

	# Started as nobody: only nobody's workers.
	mkdir -p "$T/nbrun" "$T/nbstate"
	chown nobody "$T/nbrun" "$T/nbstate"
	NP="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	id daemon >/dev/null 2>&1 && other=daemon || other=root
	mkspec "$T/u1.spec" u1 "$other" / /bin/true
	$NP "$LP" -f -c "$C" -o run_dir="$T/nbrun" -o state_dir="$T/nbstate" \
	    -s "$T/u1.spec" >"$T/u1.out" 2>&1
	exit_is $? 1 "a launch pad run as nobody refuses a spec for $other"
	contains "$T/u1.out" \
	    'runs as uid 65534, not as root, so it can only run workers as' \
	    "and logs why"
	mkspec "$T/u2.spec" u2 nobody / /bin/sh -c 'echo as-nobody; sleep 30'
	start u2 $NP "$LP" -f -c "$C" -o run_dir="$T/nbrun" \
	    -o state_dir="$T/nbstate" -s "$T/u2.spec"
	U2=$LAST_PID
	wait_for 5 grep -q as-nobody "$T/nbstate/workers/u2/out.log"
	ok $? "but runs nobody's own worker"
	"$D" status "$T/nbrun" u2 >"$T/u2.st"
	contains "$T/u2.st" '^state running$' "root may talk to it"
	kill -TERM "$U2"
	wait_for 5 gone "$U2"
	ok $? "SIGTERM ends it"
	contains "$T/u2.out" 'stopping, grace 1.000 s' "after a STOP (-f logs)"
	[ ! -e "$T/nbrun/lpad/u2.sock" ]
	ok $? "a launch pad that never dropped removes its own socket"
else
	echo "# skip: root-only cases (not root, or no user nobody)"
fi

# CilkNodeManager -k (the package's prerm, after the node manager has
# stopped) ends a launch pad that starts while it looks: one the node
# manager began just before it was stopped.
"$D" list "$R" >"$T/k0.list"
contains "$T/k0.list" '^live 0$' "no launch pad runs before -k"
"$SBIN/CilkNodeManager" -k -c "$C" -o run_dir="$R" >"$T/k.out" 2>&1 &
KPID=$!
PIDS="$PIDS $KPID"
mkspec "$T/late.spec" late "$ME" / /bin/sh -c 'exec sleep 300'
# (Its spawn may fail to ask for the status: -k may have come first.)
spawn late "$T/late.spec"
[ -n "$LPID" ]
ok $? "a launch pad starts while CilkNodeManager -k runs"
LATE=$LPID LATEW=$WPID
wait "$KPID"
exit_is $? 0 "CilkNodeManager -k"
contains "$T/k.out" '^ended 1 worker\(s\)$' "it ended the late one's worker"
late_gone() { gone "$LATE" && gone "$LATEW"; }
wait_for 5 late_gone
ok $? "the late launch pad and its worker are gone"

"$D" list "$R" >"$T/end.list"
contains "$T/end.list" '^live 0$' "no launch pad is left behind"
finish
