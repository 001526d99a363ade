/*
 * contain_test — per-worker containment: the parsers (sizes, worker
 * ids, mountinfo of hybrid and pure cgroup v2 hosts, /proc/PID/cgroup
 * and /proc/PID/stat lines, descendants in a process table), the
 * settings of contain_base_init, and, live, a worker's cgroup (a
 * setsid()ed, double-forked grandchild is still found, frozen, killed)
 * and the subreaper's process tree fallback.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "contain.h"
#include "../../src/contain/contain_int.h"
#include "tap.h"

#define KIDS_MAX	8
#define CGS_MAX		8
#define WAIT_MS		30000	/* every wait for the kernel is bounded, generously */

static pid_t	kids[KIDS_MAX];		/* our children, until reaped */
static char	cgs[CGS_MAX][PATH_MAX];	/* folders we made, in order */
static int	ncgs;

static const char hybrid[] =
"22 1 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
    "rw,name=systemd\n"
"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static const char purev2[] =
"25 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
"26 25 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs "
    "rw\n"
"30 26 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 "
    "master:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n"
"90 25 0:26 /docker/abc /mnt/my\\040cg rw,relatime shared:40 - cgroup2 "
    "cgroup2 rw\n";

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void
pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Reaps what has ended; our own children are forgotten when reaped. */
static void
reap(void)
{
	pid_t pid;
	int i;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		for (i = 0; i < KIDS_MAX; i++)
			if (kids[i] == pid)
				kids[i] = 0;
}

static void
kid_add(pid_t pid)
{
	int i;

	for (i = 0; i < KIDS_MAX; i++)
		if (kids[i] == 0) {
			kids[i] = pid;
			return;
		}
	kill(pid, SIGKILL);
	fprintf(stderr, "contain_test: too many children\n");
	exit(1);
}

/* Waits (bounded) until pid, a child of ours, has been reaped. */
static void
kid_wait(pid_t pid)
{
	double end = now_ms() + WAIT_MS;
	int i;

	for (;;) {
		reap();
		for (i = 0; i < KIDS_MAX && kids[i] != pid; i++)
			;
		if (i == KIDS_MAX || now_ms() > end)
			return;
		pause_ms(1);
	}
}

static void
cg_add(const char *path)
{
	if (ncgs == CGS_MAX)
		return;
	strlcpy(cgs[ncgs++], path, PATH_MAX);
}

/*
 * Everything we started, by pid, and every cgroup we made, whatever
 * failed on the way: killed, reaped and removed, within bounds.
 */
static void
cleanup(void)
{
	double end;
	int i;

	for (i = ncgs - 1; i >= 0; i--) {
		if (cgs[i][0] == '\0')
			continue;
		(void)contain_kill(cgs[i], 0);
		end = now_ms() + WAIT_MS;
		while (rmdir(cgs[i]) == -1 && errno == EBUSY &&
		    now_ms() < end) {
			reap();
			pause_ms(1);
		}
		cgs[i][0] = '\0';
	}
	ncgs = 0;
	for (i = 0; i < KIDS_MAX; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	/* we are a subreaper: orphans of ours are below us still */
	(void)contain_kill("", getpid());
	end = now_ms() + WAIT_MS;
	for (;;) {
		reap();
		for (i = 0; i < KIDS_MAX && kids[i] == 0; i++)
			;
		if (i == KIDS_MAX || now_ms() > end)
			break;
		pause_ms(1);
	}
}

/* A child that waits, bounded: alarm(2) ends it if nobody does. */
static void
sleeper(void)
{
	alarm(30);
	for (;;)
		pause();
}

static void
spinner(void)
{
	volatile unsigned long n = 0;

	alarm(30);
	for (;;)
		n++;
}

/* Reads want pids from fd (written as pid_t), waiting WAIT_MS at most. */
static int
read_pids(int fd, pid_t *pids, int want)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	double end = now_ms() + WAIT_MS;
	size_t have = 0, need = (size_t)want * sizeof(pid_t);
	ssize_t r;
	int left;

	while (have < need) {
		left = (int)(end - now_ms());
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return -1;
		r = read(fd, (char *)pids + have, need - have);
		if (r <= 0)
			return -1;
		have += (size_t)r;
	}
	return 0;
}

/*
 * The worker of the tests: enters cg, leaves our session and daemonizes
 * a grandchild the way a daemon would; both report their pids on fd.
 */
static void
worker_child(const char *cg, int fd)
{
	pid_t g1, g2, me;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (contain_enter(cg) == -1 || setsid() == -1)
		_exit(2);
	if ((g1 = fork()) == -1)
		_exit(3);
	if (g1 == 0) {
		if ((g2 = fork()) == -1)
			_exit(3);
		if (g2 == 0) {
			me = getpid();
			if (write(fd, &me, sizeof(me)) != sizeof(me))
				_exit(4);
			sleeper();
		}
		_exit(0);
	}
	if (waitpid(g1, NULL, 0) == -1)
		_exit(5);
	me = getpid();
	if (write(fd, &me, sizeof(me)) != sizeof(me))
		_exit(4);
	sleeper();
}

static int
wait_count(const char *cg, pid_t root, int want)
{
	double end = now_ms() + WAIT_MS;
	int n;

	for (;;) {
		reap();
		n = contain_count(cg, root);
		if (n == want || now_ms() > end)
			return n;
		pause_ms(1);
	}
}

static int
wait_frozen(const char *cg, int want)
{
	double end = now_ms() + WAIT_MS;
	int f;

	for (;;) {
		f = contain_frozen(cg);
		if (f == want || f == -1 || now_ms() > end)
			return f;
		pause_ms(1);
	}
}

/* Waits until cpu use passes from + by; the use seen, or 0. */
static uint64_t
wait_cpu(const char *cg, uint64_t from, uint64_t by)
{
	double end = now_ms() + WAIT_MS;
	uint64_t u = 0;

	for (;;) {
		if (contain_cpu_usec(cg, &u) == -1)
			return 0;
		if (u >= from + by || now_ms() > end)
			return u;
		pause_ms(5);
	}
}

static char
proc_state(pid_t pid)
{
	pid_t ppid;
	char state;

	return contain_proc_parent(pid, &ppid, &state) == -1 ? '?' : state;
}

static char
wait_state(pid_t pid, int stopped)
{
	double end = now_ms() + WAIT_MS;
	char s;

	for (;;) {
		s = proc_state(pid);
		if ((s == 'T') == stopped || now_ms() > end)
			return s;
		pause_ms(1);
	}
}

static void
test_parse_size(void)
{
	static const char *const bad[] = {
		"", "-1", " 1", "+1", "1.5G", "1GB", "G", "12x", "101%", "%",
		"1 G", "none ", "None", "0x10", "1%%", "-5%",
		"18446744073709551616", "17179869184G", "16777216T",
	};
	uint64_t b, mem;
	size_t i;
	int nbad = 0;

	mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(
	    _SC_PAGESIZE);
	ok(contain_parse_size("1048576", &b) == 0 && b == 1048576,
	    "plain bytes");
	ok(contain_parse_size("0", &b) == 0 && b == 0, "0 bytes");
	ok(contain_parse_size("64K", &b) == 0 && b == 65536, "64K");
	ok(contain_parse_size("512M", &b) == 0 && b == 512ULL << 20, "512M");
	ok(contain_parse_size("2G", &b) == 0 && b == 2ULL << 30, "2G");
	ok(contain_parse_size("3g", &b) == 0 && b == 3ULL << 30,
	    "lower-case suffix");
	ok(contain_parse_size("1T", &b) == 0 && b == 1ULL << 40, "1T");
	b = 7;
	ok(contain_parse_size("none", &b) == 0 && b == 0, "none is 0");
	ok(contain_parse_size("100%", &b) == 0 && b == mem,
	    "100%% is physical memory");
	ok(contain_parse_size("50%", &b) == 0 && b == mem / 2 + (mem % 2) / 2,
	    "50%% is half of it");
	ok(contain_parse_size("18446744073709551615", &b) == 0 &&
	    b == UINT64_MAX, "the largest number");
	ok(contain_parse_size("16777215T", &b) == 0 &&
	    b == 16777215ULL << 40, "the largest in T");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		if (contain_parse_size(bad[i], &b) == 0 ||
		    (errno != EINVAL && errno != ERANGE)) {
			printf("# accepted \"%s\"\n", bad[i]);
			nbad++;
		}
	}
	is_int(nbad, 0, "garbage, signs, fractions, overflow refused");
	errno = 0;
	ok(contain_parse_size("17179869184G", &b) == -1 && errno == ERANGE,
	    "overflow says ERANGE");
}

static void
test_worker_ids(void)
{
	static const char *const good[] = {
		"a", "w1", "0-x", "job-12-3", "abcdefghijklmnopqrstuvwxyz012345"
	};
	static const char *const bad[] = {
		"", "-a", "A", "a_b", "a/b", "a.b", "..", "a b", "w\n",
		"abcdefghijklmnopqrstuvwxyz0123456"
	};
	struct contain_base cb;
	char cg[PATH_MAX], small[12], skipped[64];
	struct contain_limits cl;
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		n += contain_worker_ok(good[i]);
	is_int(n, 5, "worker ids of a-z 0-9 -, at most 32, accepted");
	for (i = n = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		n += contain_worker_ok(bad[i]);
	is_int(n, 0, "upper case, dots, slashes, a leading -, 33 refused");

	memset(&cb, 0, sizeof(cb));
	cb.cb_mech = CONTAIN_CGROUP;
	strlcpy(cb.cb_path, "/sys/fs/cgroup/cilknow/nm", sizeof(cb.cb_path));
	ok(contain_worker_path(&cb, "7", cg, sizeof(cg)) == 0 &&
	    strcmp(cg, "/sys/fs/cgroup/cilknow/nm/w-7") == 0,
	    "a worker's cgroup is B/w-ID");
	errno = 0;
	ok(contain_worker_path(&cb, "../x", cg, sizeof(cg)) == -1 &&
	    errno == EINVAL, "a bad id: EINVAL");
	errno = 0;
	ok(contain_worker_create(&cb, "Bad", NULL, cg, sizeof(cg), NULL, 0) ==
	    -1 && errno == EINVAL, "creating with a bad id: EINVAL");
	errno = 0;
	ok(contain_worker_path(&cb, "7", small, sizeof(small)) == -1 &&
	    errno == ENAMETOOLONG, "a path that does not fit: ENAMETOOLONG");

	memset(&cl, 0, sizeof(cl));
	cl.cl_cpu_idle = -1;
	cl.cl_cpu_weight = 10001;
	errno = 0;
	ok(contain_worker_create(&cb, "7", &cl, cg, sizeof(cg), NULL, 0) ==
	    -1 && errno == EINVAL, "cpu.weight over 10000: EINVAL");

	memset(&cb, 0, sizeof(cb));
	cb.cb_mech = CONTAIN_TREE;
	memset(&cl, 0, sizeof(cl));
	cl.cl_memory_max = 1 << 20;
	cl.cl_memory_high = 1 << 19;
	cl.cl_pids_max = 10;
	cl.cl_cpu_weight = 50;
	cl.cl_cpu_idle = 1;
	cl.cl_io_weight = 10;
	strlcpy(cg, "junk", sizeof(cg));
	ok(contain_worker_create(&cb, "7", &cl, cg, sizeof(cg), skipped,
	    sizeof(skipped)) == 0 && cg[0] == '\0',
	    "TREE: nothing to create, cg is \"\"");
	is_str(skipped, "memory pids cpu io", "and every limit is skipped");
	cl.cl_memory_max = cl.cl_memory_high = cl.cl_pids_max = 0;
	cl.cl_io_weight = 0;
	cl.cl_cpu_weight = 0;
	ok(contain_worker_create(&cb, "8", &cl, cg, sizeof(cg), skipped,
	    sizeof(skipped)) == 0, "TREE with cpu.idle only");
	is_str(skipped, "cpu", "skips cpu (cpu.idle needs it)");
	ok(contain_enter("") == 0 && contain_remove("") == 0,
	    "TREE: entering and removing are nothing");
	errno = 0;
	ok(contain_frozen("") == -1 && errno == ENOTSUP,
	    "TREE: contain_frozen is ENOTSUP");
}

static void
test_mountinfo(void)
{
	char mnt[PATH_MAX], root[PATH_MAX];

	ok(contain_mountinfo_cgroup2(hybrid, NULL, mnt, sizeof(mnt), root,
	    sizeof(root)) == 0 && strcmp(mnt, "/sys/fs/cgroup/unified") == 0 &&
	    strcmp(root, "/") == 0,
	    "hybrid: cgroup2 at /sys/fs/cgroup/unified, not the v1 ones");
	ok(contain_mountinfo_cgroup2(purev2, NULL, mnt, sizeof(mnt), root,
	    sizeof(root)) == 0 && strcmp(mnt, "/sys/fs/cgroup") == 0 &&
	    strcmp(root, "/") == 0,
	    "pure v2: /sys/fs/cgroup, past optional fields");
	ok(contain_mountinfo_cgroup2(purev2, "/mnt/my cg/x/y", mnt,
	    sizeof(mnt), root, sizeof(root)) == 0 &&
	    strcmp(mnt, "/mnt/my cg") == 0 &&
	    strcmp(root, "/docker/abc") == 0,
	    "the mount holding a path; \\040 unescaped; its root");
	ok(contain_mountinfo_cgroup2(purev2, "/sys/fs/cgroup/a", mnt,
	    sizeof(mnt), root, sizeof(root)) == 0 &&
	    strcmp(mnt, "/sys/fs/cgroup") == 0, "a path under /sys/fs/cgroup");
	errno = 0;
	ok(contain_mountinfo_cgroup2(purev2, "/sys/fs/cgroupx", mnt,
	    sizeof(mnt), root, sizeof(root)) == -1 && errno == ENOENT,
	    "a path beside the mount point is not in it");
	errno = 0;
	ok(contain_mountinfo_cgroup2(hybrid, "/sys/fs/cgroup/memory/x", mnt,
	    sizeof(mnt), root, sizeof(root)) == -1 && errno == ENOENT,
	    "a path in a v1 hierarchy is not in cgroup2");
	errno = 0;
	ok(contain_mountinfo_cgroup2(
	    "1 2 0:1 / /x rw - tmpfs cgroup2 rw\n"
	    "garbage\n"
	    "3 4 0:2 / /y rw cgroup2\n"
	    "\n", NULL, mnt, sizeof(mnt), root, sizeof(root)) == -1 &&
	    errno == ENOENT,
	    "a cgroup2 source, garbage, no separator: no mount");
	ok(contain_mountinfo_cgroup2(
	    "1 2 0:1 / /x rw - cgroup2 none rw", NULL, mnt, sizeof(mnt), root,
	    sizeof(root)) == 0 && strcmp(mnt, "/x") == 0,
	    "a last line without a newline");
	errno = 0;
	ok(contain_mountinfo_cgroup2(purev2, NULL, mnt, 8, root,
	    sizeof(root)) == -1 && errno == ENAMETOOLONG,
	    "a mount point that does not fit: ENAMETOOLONG");
}

static void
test_cgroup_lines(void)
{
	char p[PATH_MAX];

	ok(contain_cgroup_line("9:name=systemd:/\n8:pids:/\n"
	    "4:memory:/process_api/af7d\n0::/\n", p, sizeof(p)) == 0 &&
	    strcmp(p, "/") == 0, "hybrid: the 0:: line among v1 ones");
	ok(contain_cgroup_line("0::/system.slice/cilknow.service\n", p,
	    sizeof(p)) == 0 && strcmp(p, "/system.slice/cilknow.service") == 0,
	    "pure v2: the one line");
	ok(contain_cgroup_line("0::/a/w-1", p, sizeof(p)) == 0 &&
	    strcmp(p, "/a/w-1") == 0, "without a final newline");
	errno = 0;
	ok(contain_cgroup_line("4:memory:/x\n1:cpu:/\n", p, sizeof(p)) ==
	    -1 && errno == ENOENT, "v1 only: ENOENT");
	errno = 0;
	ok(contain_cgroup_line("0::\n", p, sizeof(p)) == -1 &&
	    errno == EINVAL, "an empty path: EINVAL");
	errno = 0;
	ok(contain_cgroup_line("0::/abcdef\n", p, 4) == -1 &&
	    errno == ENAMETOOLONG, "a path that does not fit");

	ok(contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nm/w-7") == 1,
	    "B/w-7 is a worker's");
	ok(contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nm/w-7/x/y") ==
	    1, "and below it");
	ok(!contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nm") &&
	    !contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nm/daemon") &&
	    !contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nm/w-") &&
	    !contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nm/x/w-1") &&
	    !contain_cgpath_is_worker("/cilknow/nm", "/cilknow/nmx/w-1") &&
	    !contain_cgpath_is_worker("/cilknow/nm", "/") &&
	    !contain_cgpath_is_worker("/cilknow/nm", "/user.slice"),
	    "B, B/daemon, B/w-, deeper w-, a sibling, others are not");
	ok(contain_cgpath_is_worker("/", "/w-1") == 1 &&
	    !contain_cgpath_is_worker("/", "/x/w-1"),
	    "a base at the root of the hierarchy");
}

static void
test_stat(void)
{
	static const struct contain_proc tab[] = {
		{ 1, 0, 'S' }, { 10, 1, 'S' }, { 11, 10, 'S' },
		{ 12, 11, 'Z' }, { 13, 10, 'R' }, { 20, 1, 'S' },
		{ 21, 20, 'S' }, { 30, 31, 'S' }, { 31, 30, 'S' },
	};
	unsigned char desc[sizeof(tab) / sizeof(tab[0])];
	size_t n;
	pid_t ppid;
	char st;

	ok(contain_stat_parse("123 (bash) S 45 123 123 34816 0", &ppid,
	    &st) == 0 && ppid == 45 && st == 'S', "a stat line");
	ok(contain_stat_parse("7 (a) b) Z 1 x) Z 99 7 7\n", &ppid, &st) == 0 &&
	    ppid == 99 && st == 'Z', "a comm with ') Z 1 ' in it");
	ok(contain_stat_parse("2 (kthreadd) S 0 0 0", &ppid, &st) == 0 &&
	    ppid == 0, "a parent of 0");
	errno = 0;
	ok(contain_stat_parse("7 (a) S", &ppid, &st) == -1 &&
	    errno == EINVAL && contain_stat_parse("garbage", &ppid, &st) ==
	    -1 && contain_stat_parse("7 (a) S -1 ", &ppid, &st) == -1,
	    "short, garbled, negative: EINVAL");
	ok(contain_state_dead('Z') && contain_state_dead('X') &&
	    !contain_state_dead('S') && !contain_state_dead('T'),
	    "Z and X are dead, S and T are not");

	n = sizeof(tab) / sizeof(tab[0]);
	ok(contain_proc_descendants(tab, n, 10, desc, &n) == 0 && n == 3 &&
	    desc[2] && desc[3] && desc[4] && !desc[1] && !desc[5],
	    "descendants of 10: 11, 12, 13, not 10 itself");
	n = sizeof(tab) / sizeof(tab[0]);
	ok(contain_proc_descendants(tab, n, 1, desc, &n) == 0 && n == 6 &&
	    !desc[0] && !desc[7] && !desc[8], "of 1: all but 1 and a cycle");
	n = sizeof(tab) / sizeof(tab[0]);
	ok(contain_proc_descendants(tab, n, 30, desc, &n) == 0 && n == 1 &&
	    desc[8] && !desc[7], "a cycle ends at its root");
	n = sizeof(tab) / sizeof(tab[0]);
	ok(contain_proc_descendants(tab, n, 99, desc, &n) == 0 && n == 0,
	    "an unknown root has none");
}

/* Where a writable cgroup2 is mounted, or why there is none: 0 or -1. */
static int
cgroup2_here(char *mnt, size_t mntsz, char *why, size_t whysz)
{
	char *text, root[PATH_MAX], path[PATH_MAX];
	int rc;

	if (geteuid() != 0) {
		snprintf(why, whysz, "not root");
		return -1;
	}
	if (contain_read("/proc/self/mountinfo", &text, NULL) == -1) {
		snprintf(why, whysz, "mountinfo: %s", strerror(errno));
		return -1;
	}
	rc = contain_mountinfo_cgroup2(text, NULL, mnt, mntsz, root,
	    sizeof(root));
	free(text);
	if (rc == -1) {
		snprintf(why, whysz, "none mounted");
		return -1;
	}
	if (contain_join(path, sizeof(path), mnt, "cgroup.procs") == -1 ||
	    access(mnt, W_OK) == -1 || access(path, W_OK) == -1) {
		snprintf(why, whysz, "%.200s: %s", mnt, strerror(errno));
		return -1;
	}
	return 0;
}

static void
test_base_settings(const char *mnt)
{
	struct contain_base cb;
	char err[512], buf[1024], name[64], cil[PATH_MAX], path[PATH_MAX];
	int rc;

	ok(contain_base_init(&cb, "none", "nm", err, sizeof(err)) == 0 &&
	    cb.cb_mech == CONTAIN_TREE && strstr(cb.cb_why, "none") != NULL &&
	    cb.cb_path[0] == '\0', "none: the process tree, configured so");
	is_str(contain_base_describe(&cb, buf, sizeof(buf)),
	    "process tree (no cgroup: cgroup = none in the configuration)",
	    "described with why");
	errno = 0;
	ok(contain_base_init(&cb, "bogus", "nm", err, sizeof(err)) == -1 &&
	    errno == EINVAL && strstr(err, "bogus") != NULL,
	    "a malformed setting is refused, named in err");
	ok(contain_base_init(&cb, "none", "a/b", err, sizeof(err)) == -1 &&
	    contain_base_init(&cb, "none", "", err, sizeof(err)) == -1 &&
	    contain_base_init(&cb, "none", "..", err, sizeof(err)) == -1,
	    "names with / or empty or .. are refused");
	ok(contain_base_init(&cb, "/tmp", "nm", err, sizeof(err)) == -1 &&
	    strstr(err, "not in a cgroup v2") != NULL,
	    "a folder outside cgroup2 fails closed: %s", err);
	ok(contain_base_init(&cb, "/nonexistent/x/y", "nm", err,
	    sizeof(err)) == -1, "so does a missing one outside cgroup2");
	ok(contain_base_init(&cb, "/sys/fs/cgroup/../../tmp", "nm", err,
	    sizeof(err)) == -1 && strstr(err, "plain") != NULL,
	    "and one with .. in it");

	snprintf(name, sizeof(name), "test-%ld", (long)getpid());
	rc = contain_base_init(&cb, "auto", name, err, sizeof(err));
	contain_base_describe(&cb, buf, sizeof(buf));
	ok(rc == 0 && (cb.cb_mech == CONTAIN_CGROUP ||
	    (cb.cb_mech == CONTAIN_TREE && cb.cb_why[0] != '\0')),
	    "auto: %s", rc == 0 ? buf : err);
	if (rc == 0 && cb.cb_mech == CONTAIN_CGROUP && mnt != NULL &&
	    snprintf(cil, sizeof(cil), "%s/cilknow", mnt) > 0 &&
	    snprintf(path, sizeof(path), "%s/%s", cil, name) > 0 &&
	    strcmp(cb.cb_path, path) == 0) {
		ok(cb.cb_cgpath[0] == '/' && strstr(cb.cb_cgpath, name) !=
		    NULL, "auto as root: B = MOUNT/cilknow/NAME (%s)",
		    cb.cb_cgpath);
		ok(rmdir(path) == 0, "which is removed again");
		/* others may be there (a real node manager): theirs stays */
		if (rmdir(cil) == -1 && errno != ENOTEMPTY && errno != EBUSY)
			printf("# rmdir %s: %s\n", cil, strerror(errno));
	}
}

/* A worker cgroup, a setsid()ed grandchild, freeze, kill, remove. */
static void
test_cgroup_live(const char *mnt)
{
	struct contain_base cb;
	struct contain_limits cl;
	char base[PATH_MAX], cg[PATH_MAX], cg2[PATH_MAX], err[512];
	char skipped[64], want[64], buf[1024], path[PATH_MAX];
	uint64_t u0, u1, u2, u3;
	pid_t a, spin, pids[2];
	int fd[2], n;

	n = snprintf(base, sizeof(base), "%s/cilknow-test-%ld", mnt,
	    (long)getpid());
	if (!ok(n > 0 && (size_t)n < sizeof(base), "a base path fits"))
		return;
	cg_add(base);
	n = contain_base_init(&cb, base, "nm", err, sizeof(err));
	contain_base_describe(&cb, buf, sizeof(buf));
	if (!ok(n == 0 && cb.cb_mech == CONTAIN_CGROUP &&
	    strcmp(cb.cb_path, base) == 0, "an explicit base is made: %s",
	    n == 0 ? buf : err))
		return;
	ok(cb.cb_cgpath[0] == '/' && strstr(cb.cb_cgpath, "cilknow-test-") !=
	    NULL, "and named as /proc/PID/cgroup names it: %s",
	    cb.cb_cgpath);

	memset(&cl, 0, sizeof(cl));
	cl.cl_memory_max = 512ULL << 20;
	cl.cl_pids_max = 100;
	cl.cl_cpu_weight = 50;
	cl.cl_cpu_max = 3;
	cl.cl_cpu_idle = -1;
	want[0] = '\0';
	if (!(cb.cb_controllers & CONTAIN_CTL_MEMORY))
		strlcat(want, "memory", sizeof(want));
	if (!(cb.cb_controllers & CONTAIN_CTL_PIDS))
		strlcat(want, want[0] ? " pids" : "pids", sizeof(want));
	if (!(cb.cb_controllers & CONTAIN_CTL_CPU))
		strlcat(want, want[0] ? " cpu" : "cpu", sizeof(want));
	n = contain_worker_create(&cb, "w1", &cl, cg, sizeof(cg), skipped,
	    sizeof(skipped));
	if (n == 0)
		cg_add(cg);
	if (!ok(n == 0, "a worker cgroup is made: %s", cg))
		return;
	is_str(skipped, want, "limits the base cannot apply are named");
	if (cb.cb_controllers & CONTAIN_CTL_MEMORY) {
		ok(contain_join(path, sizeof(path), cg, "memory.max") == 0 &&
		    contain_read_buf(path, buf, sizeof(buf)) == 0 &&
		    strcmp(buf, "536870912\n") == 0, "memory.max written");
	}
	if (cb.cb_controllers & CONTAIN_CTL_CPU) {
		ok(contain_join(path, sizeof(path), cg, "cpu.max") == 0 &&
		    contain_read_buf(path, buf, sizeof(buf)) == 0 &&
		    strcmp(buf, "300000 100000\n") == 0,
		    "cpu.max holds it to 3 processors: %s", buf);
	}
	errno = 0;
	ok(contain_worker_create(&cb, "w1", NULL, cg2, sizeof(cg2), NULL, 0) ==
	    -1 && errno == EEXIST, "an existing worker cgroup is refused");

	if (pipe(fd) == -1) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((a = fork()) == -1) {
		ok(0, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (a == 0) {
		close(fd[0]);
		worker_child(cg, fd[1]);
	}
	kid_add(a);
	if ((spin = fork()) == 0) {
		close(fd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (contain_enter(cg) == -1)
			_exit(2);
		spinner();
	}
	if (spin > 0)
		kid_add(spin);
	close(fd[1]);
	n = read_pids(fd[0], pids, 2);
	close(fd[0]);
	if (!ok(n == 0 && spin > 0, "the worker and its daemonized "
	    "grandchild started"))
		return;
	is_int(wait_count(cg, 0, 3), 3, "the cgroup holds the worker, "
	    "the grandchild in its own session, the spinner");
	ok(contain_pid_is_worker(&cb, a, NULL, 0) == 1 &&
	    contain_pid_is_worker(&cb, pids[0] == a ? pids[1] : pids[0],
	    NULL, 0) == 1 && contain_pid_is_worker(&cb, spin, NULL, 0) == 1,
	    "each of them is a worker's");
	ok(contain_pid_is_worker(&cb, getpid(), NULL, 0) == 0,
	    "we are not");
	errno = 0;
	ok(contain_pid_is_worker(&cb, INT_MAX, NULL, 0) == -1 &&
	    errno == ESRCH, "no such process: -1 ESRCH");
	is_int(contain_signal(cg, 0, 0), 3, "contain_signal reaches all 3");

	u0 = 0;
	ok(contain_cpu_usec(cg, &u0) == 0 &&
	    (u1 = wait_cpu(cg, u0, 20000)) >= u0 + 20000,
	    "cpu use grows while the spinner runs");
	ok(contain_freeze(cg, 0, 1) == 0, "freeze");
	is_int(wait_frozen(cg, 1), 1, "cgroup.events says frozen");
	u1 = u2 = 0;
	n = contain_cpu_usec(cg, &u1);
	pause_ms(100);		/* the time during which nothing may run */
	if (n == 0)
		n = contain_cpu_usec(cg, &u2);
	ok(n == 0 && u2 >= u1 && u2 - u1 < 2000,
	    "frozen, the spinner uses no cpu (%lld us in 100 ms)",
	    (long long)u2 - (long long)u1);
	ok(contain_freeze(cg, 0, 0) == 0 && wait_frozen(cg, 0) == 0,
	    "thaw");
	ok((u3 = wait_cpu(cg, u2, 20000)) >= u2 + 20000,
	    "and it runs again");
	errno = 0;
	ok(contain_remove(cg) == -1 && errno == EBUSY,
	    "a populated cgroup is not removed: EBUSY");

	ok(contain_kill(cg, 0) == 0, "contain_kill");
	is_int(wait_count(cg, 0, 0), 0, "everyone of the cgroup is gone");
	ok(contain_remove(cg) == 0, "the empty cgroup is removed");
	cgs[ncgs - 1][0] = '\0';
	ok(rmdir(base) == 0, "and the base after it");
	cgs[0][0] = '\0';
	ncgs = 0;
}

/* The fallback: a subreaper's descendants, setsid()ed or not. */
static void
test_tree_live(void)
{
	struct contain_base cb;
	char err[256];
	pid_t s, c, pids[2], g2, x;
	int fd[2], n;

	ok(contain_base_init(&cb, "none", "nm", err, sizeof(err)) == 0,
	    "a TREE base");
	if (pipe(fd) == -1) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((s = fork()) == -1) {
		ok(0, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (s == 0) {
		/* the launch pad: a subreaper reaping whatever ends */
		close(fd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
			_exit(2);
		alarm(30);
		if ((x = fork()) == -1)
			_exit(3);
		if (x == 0)
			worker_child("", fd[1]);
		close(fd[1]);
		for (;;)
			if (waitpid(-1, NULL, 0) == -1 && errno == ECHILD)
				pause();
	}
	kid_add(s);
	close(fd[1]);
	n = read_pids(fd[0], pids, 2);
	close(fd[0]);
	if (!ok(n == 0, "the worker and its daemonized grandchild started"))
		goto out;
	/* the worker leads the session it made; the grandchild is in it */
	c = getsid(pids[0]) == pids[0] ? pids[0] : pids[1];
	g2 = c == pids[0] ? pids[1] : pids[0];
	is_int(wait_count("", s, 2), 2,
	    "the tree holds the worker and the orphaned grandchild");
	ok(contain_pid_is_worker(&cb, g2, &s, 1) == 1 &&
	    contain_pid_is_worker(&cb, c, &s, 1) == 1,
	    "both descend from the subreaper");
	ok(contain_pid_is_worker(&cb, s, &s, 1) == 0 &&
	    contain_pid_is_worker(&cb, getpid(), &s, 1) == 0,
	    "the subreaper itself and we do not");
	errno = 0;
	ok(contain_signal("", 1, 0) == -1 && errno == EINVAL,
	    "the tree of init is refused");

	ok(contain_freeze("", s, 1) == 0, "freeze the tree");
	ok(wait_state(g2, 1) == 'T' && wait_state(c, 1) == 'T',
	    "both stopped");
	ok(contain_freeze("", s, 0) == 0 && wait_state(g2, 0) != 'T' &&
	    wait_state(c, 0) != 'T', "thawed");

	ok(contain_kill("", s) == 0, "contain_kill of the tree");
	is_int(wait_count("", s, 0), 0, "nobody is left (zombies count not)");
	ok(kill(s, 0) == 0, "the subreaper itself is spared");
out:
	kill(s, SIGKILL);
	kid_wait(s);
}

/* What a child that ran contain_base_init("auto") saw. */
struct deleg_msg {
	int	dm_rc;
	int	dm_mech;
	char	dm_path[512];
	char	dm_own[512];	/* its cgroup afterwards */
};

/* Reads the cgroup of pid into buf; -1 if it cannot. */
static int
cgroup_of(pid_t pid, char *buf, size_t bufsz)
{
	char path[64], *text;
	int rc;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
	if (contain_read(path, &text, NULL) == -1)
		return -1;
	rc = contain_cgroup_line(text, buf, bufsz);
	free(text);
	return rc;
}

/*
 * A cgroup delegated the way systemd does it (trusted.delegate), with a
 * node manager and one more process of its unit in it: "auto" makes it
 * the base and moves both to B/daemon.
 */
static void
test_delegated_live(const char *mnt)
{
	struct contain_base cb;
	struct deleg_msg m;
	struct pollfd pfd;
	char d[PATH_MAX], daemon[PATH_MAX], cgd[PATH_MAX], err[256];
	char other[PATH_MAX];
	double end;
	pid_t x, y;
	ssize_t r;
	int fd[2], n;

	n = snprintf(d, sizeof(d), "%s/cilknow-deleg-%ld", mnt,
	    (long)getpid());
	if (!ok(n > 0 && (size_t)n < sizeof(d) && contain_join(daemon,
	    sizeof(daemon), d, "daemon") == 0, "a delegated cgroup's path"))
		return;
	if (!ok(mkdir(d, 0755) == 0, "made: %s", d))
		return;
	cg_add(d);
	cg_add(daemon);
	if (setxattr(d, "trusted.delegate", "1", 1, 0) == -1) {
		ok(1, "# SKIP no trusted.delegate xattr on cgroupfs: %s",
		    strerror(errno));
		return;
	}
	fflush(stdout);
	if ((y = fork()) == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (contain_enter(d) == -1)
			_exit(2);
		sleeper();
	}
	if (y == -1 || pipe(fd) == -1) {
		ok(0, "fork or pipe: %s", strerror(errno));
		if (y > 0)
			kill(y, SIGKILL);
		return;
	}
	kid_add(y);
	if ((x = fork()) == 0) {
		close(fd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(&m, 0, sizeof(m));
		if (contain_enter(d) == -1)
			_exit(2);
		/* y first in B: it must be there before the base is set up */
		end = now_ms() + WAIT_MS;
		while (cgroup_of(y, other, sizeof(other)) == 0 &&
		    strstr(other, "cilknow-deleg-") == NULL && now_ms() < end)
			pause_ms(1);
		m.dm_rc = contain_base_init(&cb, "auto", "nm", err,
		    sizeof(err));
		m.dm_mech = cb.cb_mech;
		strlcpy(m.dm_path, cb.cb_path, sizeof(m.dm_path));
		if (cgroup_of(getpid(), m.dm_own, sizeof(m.dm_own)) == -1)
			_exit(3);
		if (write(fd[1], &m, sizeof(m)) != sizeof(m))
			_exit(4);
		_exit(0);
	}
	close(fd[1]);
	if (x > 0)
		kid_add(x);
	memset(&m, 0, sizeof(m));
	pfd.fd = fd[0];
	pfd.events = POLLIN;
	r = x > 0 && poll(&pfd, 1, WAIT_MS) == 1 ? read(fd[0], &m,
	    sizeof(m)) : -1;
	close(fd[0]);
	if (x > 0)
		kid_wait(x);
	if (!ok(r == (ssize_t)sizeof(m), "the node manager in it reported"))
		goto out;
	ok(m.dm_rc == 0 && m.dm_mech == CONTAIN_CGROUP &&
	    strcmp(m.dm_path, d) == 0, "auto: the delegated cgroup is B (%s)",
	    m.dm_path);
	n = snprintf(cgd, sizeof(cgd), "%s/daemon", strrchr(d, '/'));
	ok(n > 0 && strstr(m.dm_own, cgd) != NULL && m.dm_own[0] == '/',
	    "and it moved itself to B/daemon (%s)", m.dm_own);
	ok(cgroup_of(y, other, sizeof(other)) == 0 && strstr(other, cgd) !=
	    NULL, "with the other process of its unit (%s)", other);
out:
	kill(y, SIGKILL);
	kid_wait(y);
}

/* cpu.max quotas: the least over a cgroup and its ancestors. */
static void
test_cpu_quota(void)
{
	char top[] = "/tmp/contain_quota.XXXXXX", a[PATH_MAX], b[PATH_MAX + 8];
	char f[PATH_MAX + 16];
	FILE *fp;

	if (mkdtemp(top) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(a, sizeof(a), "%s/unit.service", top);
	snprintf(b, sizeof(b), "%s/daemon", a);
	if (mkdir(a, 0755) == -1 || mkdir(b, 0755) == -1) {
		ok(0, "mkdir: %s", strerror(errno));
		return;
	}
	ok(contain_cpu_quota_dir(top, b) == 0, "no cpu.max anywhere: no quota");
	snprintf(f, sizeof(f), "%s/cpu.max", b);
	if ((fp = fopen(f, "w")) != NULL) {
		fputs("max 100000\n", fp);
		fclose(fp);
	}
	ok(contain_cpu_quota_dir(top, b) == 0, "\"max\" is no quota");
	snprintf(f, sizeof(f), "%s/cpu.max", a);
	if ((fp = fopen(f, "w")) != NULL) {
		fputs("150000 100000\n", fp);
		fclose(fp);
	}
	ok(contain_cpu_quota_dir(top, b) == 2,
	    "the unit's quota of 1.5 CPUs, above the daemon's cgroup: 2");
	snprintf(f, sizeof(f), "%s/cpu.max", top);
	if ((fp = fopen(f, "w")) != NULL) {
		fputs("100000 100000\n", fp);
		fclose(fp);
	}
	ok(contain_cpu_quota_dir(top, b) == 1, "the least over the ancestors");
	ok(contain_cpu_quota_dir(b, top) == 0, "a folder not under top: none");
	snprintf(f, sizeof(f), "%s/cpu.max", b);
	unlink(f);
	snprintf(f, sizeof(f), "%s/cpu.max", a);
	unlink(f);
	snprintf(f, sizeof(f), "%s/cpu.max", top);
	unlink(f);
	rmdir(b);
	rmdir(a);
	rmdir(top);
}

/* What workers here cannot be held to, and its names. */
static void
test_unenforced(void)
{
	struct contain_base cb;
	char buf[64];

	memset(&cb, 0, sizeof(cb));
	cb.cb_mech = CONTAIN_TREE;
	ok(contain_unenforced(&cb) == CONTAIN_CTL_ALL &&
	    contain_unenforced(NULL) == CONTAIN_CTL_ALL,
	    "a process tree enforces no limit");
	cb.cb_mech = CONTAIN_CGROUP;
	cb.cb_controllers = CONTAIN_CTL_MEMORY | CONTAIN_CTL_PIDS;
	is_str(contain_ctl_names(contain_unenforced(&cb), buf, sizeof(buf)),
	    "cpu io", "a cgroup without cpu and io: those unenforced");
	cb.cb_controllers = CONTAIN_CTL_ALL;
	ok(contain_unenforced(&cb) == 0 &&
	    strcmp(contain_ctl_names(0, buf, sizeof(buf)), "") == 0,
	    "every controller: nothing unenforced, no names");
	is_str(contain_ctl_names(CONTAIN_CTL_ALL, buf, sizeof(buf)),
	    "memory pids cpu io", "every name, in order");
	is_str(contain_ctl_names(CONTAIN_CTL_ALL, buf, 8), "memory ",
	    "truncated to the buffer");
}

int
main(void)
{
	char mnt[PATH_MAX], why[512];
	int live;

	/* orphans of our children come to us, to be reaped and counted */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		fprintf(stderr, "contain_test: subreaper: %s\n",
		    strerror(errno));
	atexit(cleanup);

	test_parse_size();
	test_cpu_quota();
	test_worker_ids();
	test_mountinfo();
	test_cgroup_lines();
	test_stat();
	test_unenforced();
	live = cgroup2_here(mnt, sizeof(mnt), why, sizeof(why)) == 0;
	test_base_settings(live ? mnt : NULL);
	if (live) {
		test_cgroup_live(mnt);
		test_delegated_live(mnt);
	} else
		ok(1, "# SKIP no writable cgroup v2 (%s)", why);
	test_tree_live();
	cleanup();
	return tap_done();
}
