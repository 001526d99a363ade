# Sourced by the integration tests: TAP output, a private temporary
# folder, processes started by pid and always cleaned up, bounded waits.
set -u
# Debian's programs first (as tests/run.sh): a version manager's shim
# ahead of python3 costs 0.8 s of CPU a call.
PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
: "${CILKNOW_BUILD:?run through make check (tests/run.sh)}"
BIN=$CILKNOW_BUILD/bin
SBIN=$CILKNOW_BUILD/sbin
TOOLS=$CILKNOW_BUILD/tests
T=$(mktemp -d "${TMPDIR:-/tmp}/cilknow-test.XXXXXX")
# Daemons started as root drop to the service user (the broker, the
# node manager's engine), who must reach the sensor files, configs,
# public keys and input devices a test keeps here, and list it, as a
# node manager globs input_devices.
chmod 755 "$T"
# LeakSanitizer's check at a sanitized process's exit costs about 50 ms
# of CPU whatever the program (it scans libasan's and libubsan's 11 MB
# of globals): 40 % of the integration tests' CPU.  The queries that
# tests call again and again, and the launch pad (one per worker, 70 %
# of a batch test's CPU), leave it off, by program (the sanitizers'
# include_if_exists with %b, the program's name); every other daemon,
# job and CilkRun keeps it.  A test that has "# leaks: every program"
# (those of these programs themselves) keeps it for all.
if ! grep -q '^# leaks: every program' "$0" 2>/dev/null; then
	mkdir -p "$T/lsan" &&
	for _p in CilkNodes CilkPs CilkHist CilkPred CilkKill CilkLaunchPad; do
		echo detect_leaks=0 >"$T/lsan/$_p"
	done
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:include_if_exists=$T/lsan/%b"
fi
. "$(dirname "${BASH_SOURCE[0]}")/../nap.bash"
nap_init "$T"
PIDS=
TAP_N=0
TAP_FAILED=0

cleanup() {
	for p in $PIDS; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $PIDS; do
		# bounded: SIGKILL whatever did not stop within 5 s
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			nap 0.1
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for u in $TEST_USERS; do
		userdel "$u" >/dev/null 2>&1 || userdel -f "$u" >/dev/null 2>&1
	done
	# CILKNOW_KEEP=1 keeps a failed test's folder for a post-mortem,
	# CILKNOW_KEEP=2 every test's.
	if { [ "${CILKNOW_KEEP:-0}" = 1 ] && [ "$TAP_FAILED" -ne 0 ]; } ||
	    [ "${CILKNOW_KEEP:-0}" = 2 ]; then
		echo "# kept $T"
	else
		rm -rf "$T"
	fi
}
trap cleanup EXIT
TEST_USERS=

# own_user PREFIX : a user of the test's own, PREFIX-PID (unique on this
# machine: another run of the test may be making its own at the same
# time), in OWN_USER; cleanup removes it.  The users of earlier runs
# whose process is gone (ended by SIGKILL at a time limit) go first.
# useradd is retried while another holds the lock on /etc/passwd.
own_user() {
	for _u in $(sed -n "s/^\($1-[0-9]*\):.*/\1/p" /etc/passwd); do
		kill -0 "${_u#"$1"-}" 2>/dev/null || userdel "$_u" >/dev/null 2>&1
	done
	OWN_USER=$1-$$
	wait_for 30 useradd --no-create-home --home-dir /nonexistent \
	    --shell /usr/sbin/nologin --user-group \
	    --comment "cilknow test" "$OWN_USER" || return 1
	TEST_USERS="$TEST_USERS $OWN_USER"
}
trap 'exit 1' INT TERM

ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION; returns its status
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAILED=$((TAP_FAILED + 1))
		return 1
	fi
}
check() {	# check DESCRIPTION CMD... : passes when CMD succeeds
	desc=$1; shift
	"$@" >/dev/null 2>&1
	ok $? "$desc"
}
contains() {	# contains FILE REGEX DESCRIPTION
	if grep -Eq -- "$2" "$1"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   no /$2/ in $1:"
		sed 's/^/#   | /' "$1" | head -20
	fi
}
exit_is() {	# exit_is GOT WANT DESCRIPTION
	[ "$1" -eq "$2" ]
	ok $? "$3 (exit $1, want $2)"
}
finish() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# start NAME CMD... : runs CMD in the background, output in $T/NAME.out
start() {
	name=$1; shift
	"$@" >"$T/$name.out" 2>&1 &
	PIDS="$PIDS $!"
	LAST_PID=$!
}
# stop PID : TERM, wait at most 5 s, then KILL
stop() {
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$1" 2>/dev/null || break
		nap 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}
# wait_for SECONDS CMD... : polls CMD until it succeeds or SECONDS pass.
# A poll often starts a sanitized program, whose start and leak check
# cost about 0.1 s of CPU: polling every 0.05 s kept a core busy per
# waiting test.  The pause grows from 0.05 s to 0.3 s (a wait ends at
# most 0.3 s after its event), and the last try is at the bound.
# (The clock is bash's: date(1) forked at every poll was thousands of
# processes in make check.)
wait_for() {
	limit=$1; shift
	end=$(( ${EPOCHREALTIME//[.,]/} + limit * 1000000 ))
	_pause=0.05
	# The first try is leak-checked; the repeats are not: LeakSanitizer's
	# scan at exit was most of a sanitized poll's CPU time.
	"$@" >/dev/null 2>&1 && return 0
	while [ "${EPOCHREALTIME//[.,]/}" -lt "$end" ]; do
		nap "$_pause"
		case $_pause in
		0.05) _pause=0.1 ;; 0.1) _pause=0.2 ;; 0.2) _pause=0.3 ;;
		esac
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$@" \
		    >/dev/null 2>&1 && return 0
	done
	"$@" >/dev/null 2>&1 && return 0
	# Say what the command said last, or a missing tool looks like a hang.
	echo "# wait_for: ${limit} s without success: $*"
	{ "$@" 2>&1 >/dev/null; } | tail -n 3 | sed 's/^/#   /'
	return 1
}

# BUSY_MACHINE_WORKERS: CilkLocal options for a test whose parallel
# program's workers must get a processor while make check's other tests
# keep both busy.  A guest's default, nice 19 under SCHED_IDLE, each in
# an autogroup of its own, got ~0 of a processor beside them (0830's
# workers did not join within 20 s beside four busy loops); at nice 0
# under the normal policy they get a fair share.  The tests of the
# owner's priority itself (0605, 0300, 0840) keep the default.
BUSY_MACHINE_WORKERS="-o worker_nice=0 -o worker_sched_idle=no"

# diag_cluster DIR : after a failed check, what the CilkLocal cluster
# in DIR shows (its nodes, its jobs, the broker's last words and each
# node's last lines), short enough for make check's excerpt.
diag_cluster() {
	{
		CILKNOW_CONF=$1/cilknow.conf "$BIN/CilkNodes" 2>&1
		CILKNOW_CONF=$1/cilknow.conf "$BIN/CilkPs" 2>&1 | head -8
		tail -n 6 "$1/broker.log" | cut -c 12-170
		for _l in "$1"/nodes/*/log; do
			tail -n 4 "$_l" | cut -c 12-170 |
			    sed "s|^|${_l#"$1"/nodes/}: |"
		done
	} | sed 's/^/#   % /'
}

# stolen_in FILE : closures stolen by workers other than the root in a
# program of threads run with CILKNOW_STATS=1, by the thieves' counts
# (which may reach the root after it has printed) or, failing those, 1
# for the root's own line of a steal from it
stolen_in() {
	local k
	k=$(sed -n 's/.*cilknow: worker [0-9]*: .* \([0-9][0-9]*\) closures stolen.*/\1/p' \
	    "$1" | awk '{ s += $1 } END { print s + 0 }')
	if [ "$k" -eq 0 ] &&
	    grep -q 'cilknow: worker [0-9]* stole a closure from the root' "$1"; then
		k=1
	fi
	echo "$k"
}
# answer_is FILE WANT DESCRIPTION : a program's last line of digits
# (its answer) is WANT; otherwise its output's tail is shown.
answer_is() {
	if [ "$(grep -E '^[0-9]+$' "$1" | tail -1)" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		sed 's/^/#   | /' "$1" | tail -30
	fi
}
# shells REGEX : the sorted pids of processes whose command line
# matches REGEX (pgrep -f), less those whose parent matches too: a
# worker "sh -c 'sleep 600; : MARK'" forks for sleep, and the child has
# the shell's command line until its exec (long enough to be seen on a
# busy machine).
shells() {	# like pgrep, its status is 1 when there is none
	_all=" $(pgrep -f "$1" | tr '\n' ' ')"
	_found=$(for _p in $_all; do
		# field 4 of /proc/PID/stat is the parent (the name, field 2, is "(sh)")
		_pp=$(awk '{ print $4 }' "/proc/$_p/stat" 2>/dev/null) || continue
		case "$_all " in *" $_pp "*) continue ;; esac
		echo "$_p"
	done | sort -n)
	[ -n "$_found" ] || return 1
	echo "$_found"
}
# worker_pids FILE : the live pids of the workers (not the root) a
# clearinghouse logged in FILE as they joined ("worker N joined from
# ADDR (pid P); ..."): a test knows its own workers so, never by a name
# another test shares.
worker_pids() {
	sed -n 's/.*worker [0-9]* joined from [^ ]* (pid \([0-9]*\));.*/\1/p' \
	    "$1" | while read -r p; do kill -0 "$p" 2>/dev/null && echo "$p"; done
}

# kill_nm PID : SIGKILLs a node manager (PID, its parent) and waits, 15 s
# at most, until its engine, which the parent's death sends SIGTERM, has
# ended too: a node manager started again before that cannot bind the
# engine's address ("Address already in use", seen on a busy machine).
kill_nm() {
	_engine=$(engine_of "$1")
	kill -KILL "$1"
	for _p in "$1" $_engine; do
		wait_for 15 pid_ended "$_p" || return 1
	done
}
# engine_of PID : the pid of node manager PID's engine (its child)
engine_of() { ps -o pid=,args= --ppid "$1" | awk '/engine/ { print $1 }'; }
pid_ended() {	# pid_ended PID : no such process, or a zombie
	! kill -0 "$1" 2>/dev/null || grep -q ') Z ' "/proc/$1/stat" 2>/dev/null
}

# skip_all REASON : the whole test cannot run here; counted as a skip.
skip_all() {
	echo "ok 1 # SKIP $1"
	echo "1..1"
	exit 0
}

# root_or_skip : a test of workers run as other users and of dropped
# privileges needs root and the service user; elsewhere it is skipped.
root_or_skip() {
	if [ "$(id -u)" -ne 0 ] || ! id cilknow >/dev/null 2>&1; then
		skip_all "needs root and the service user cilknow"
	fi
}

# keys_and_conf DIR : a cluster key, user keys for ann and bob (bob's
# public key is not installed), and DIR/cilknow.conf naming them, with
# state and run folders in DIR so that no test writes to the system's.
keys_and_conf() {
	d=$1
	mkdir -p "$d/users"
	"$BIN/CilkKey" generate-cluster "$d/cluster.key" >/dev/null &&
	"$BIN/CilkKey" generate-user -u ann "$d/ann.id" >/dev/null &&
	"$BIN/CilkKey" generate-user -u bob "$d/bob.id" >/dev/null &&
	"$BIN/CilkKey" public "$d/ann.id" >"$d/users/ann.pub" || return 1
	cat >"$d/cilknow.conf" <<EOC
cluster_key = $d/cluster.key
cluster_pub = $d/cluster.pub
user_key = $d/ann.id
user_keys = $d/users
state_dir = $d/state
run_dir = $d/run
timeout = 1
EOC
	chmod 644 "$d/cilknow.conf"
}

# reloads_in DIR : how often the daemons of the CilkLocal cluster in DIR
# have loaded the users' keys: each once at start; at every reload the
# broker's engine once, a node manager twice (its root process checks a
# job's signature again, and its engine).
reloads_in() {
	cat "$1/broker.log" "$1"/nodes/*/log 2>/dev/null |
	    grep -Ec "user_keys .* loaded, [0-9]+ refused"
}
# reload_local DIR : SIGHUP to every daemon of the CilkLocal cluster in
# DIR, as an administrator reloads once a user's public key is in
# user_keys (daemons load them at start and on SIGHUP), and waits until
# each has logged its reload.
reload_local() {
	_want=$(( $(reloads_in "$1") +
	    $(awk '{ n += $1 == "node" ? 2 : 1 } END { print n }' "$1/pids") ))
	awk '{ print $2 }' "$1/pids" | xargs kill -HUP
	wait_for 15 reloaded_in "$1" "$_want"
}
reloaded_in() { [ "$(reloads_in "$1")" -ge "$2" ]; }	# DIR N
