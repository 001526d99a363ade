/*
 * conf_test — cilknow.conf(5): defaults, every value type, the file
 * syntax, error collection with file:line, file permissions, -o
 * overrides, "~/" expansion and the default path.
 */
#include "conf.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static char	tmpdir[256];
static char	errbuf[8192];

static const char *write_file(const char *, const char *, mode_t);
static int	load(struct conf *, const char *, int);
static int	count_lines(const char *);
static void	set_ok(struct conf *, const char *, const char *);
static void	set_bad(struct conf *, const char *, const char *);
static const char *esc(const char *);
static void	diag(const char *);
static void	sample_test(const char *(*)[2], size_t);

/* s on one short line, for test names; four calls may share a printf. */
static const char *
esc(const char *s)
{
	static char bufs[4][80];
	static int next;
	char *b = bufs[next++ % 4];
	size_t i = 0;

	for (; *s != '\0' && i < sizeof(bufs[0]) - 4; s++) {
		if (*s == '\n') {
			b[i++] = '\\';
			b[i++] = 'n';
		} else if (*s == '#')
			b[i++] = '=';	/* keep TAP directives out */
		else
			b[i++] = *s;
	}
	if (*s != '\0')
		b[i++] = '+';
	b[i] = '\0';
	return b;
}

/* Each line of s as a TAP comment. */
static void
diag(const char *s)
{
	const char *e;

	while (*s != '\0') {
		e = s + strcspn(s, "\n");
		printf("# %.*s\n", (int)(e - s), s);
		s = *e == '\n' ? e + 1 : e;
	}
}

/* Writes tmpdir/name with content and mode; returns the path. */
static const char *
write_file(const char *name, const char *content, mode_t mode)
{
	static char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if ((fp = fopen(path, "w")) == NULL) {
		perror(path);
		exit(1);
	}
	fputs(content, fp);
	fclose(fp);
	if (chmod(path, mode) == -1) {
		perror(path);
		exit(1);
	}
	return path;
}

/* conf_load_file with the messages collected in errbuf. */
static int
load(struct conf *cf, const char *path, int missing_ok)
{
	FILE *errs;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if ((errs = open_memstream(&buf, &len)) == NULL) {
		perror("open_memstream");
		exit(1);
	}
	rc = conf_load_file(cf, path, missing_ok, errs);
	fclose(errs);
	strlcpy(errbuf, buf != NULL ? buf : "", sizeof(errbuf));
	free(buf);
	return rc;
}

static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		if (*s == '\n')
			n++;
	return n;
}

static void
set_ok(struct conf *cf, const char *key, const char *val)
{
	char err[256] = "";

	ok(conf_set(cf, key, val, err, sizeof(err)) == 0,
	    "%s = \"%s\" accepted%s%s", key, esc(val), err[0] ? ": " : "",
	    esc(err));
}

static void
set_bad(struct conf *cf, const char *key, const char *val)
{
	char err[256] = "", before[CONF_VALUE_MAX];
	const char *v;
	int rc;

	v = conf_get(cf, key);
	strlcpy(before, v != NULL ? v : "", sizeof(before));
	errno = 0;
	rc = conf_set(cf, key, val, err, sizeof(err));
	ok(rc == -1 && errno == EINVAL && strncmp(err, key, strlen(key)) == 0,
	    "%s = \"%s\" refused (%s)", key, esc(val), esc(err));
	v = conf_get(cf, key);
	if (v != NULL && strcmp(v, before) != 0)
		ok(0, "%s unchanged after refusal", key);
}

/*
 * conf/cilknow.conf lists every key, commented out, at its default:
 * uncommented it must load and give exactly the defaults.
 */
static void
sample_test(const char *(*defaults)[2], size_t nkeys)
{
	struct conf *cf;
	const char *top, *path;
	char sample[PATH_MAX], *l = NULL, *text = NULL;
	size_t lcap = 0, tlen = 0, i, nset = 0;
	FILE *fp, *out;

	top = getenv("CILKNOW_TOP") != NULL ? getenv("CILKNOW_TOP") : ".";
	snprintf(sample, sizeof(sample), "%s/conf/cilknow.conf", top);
	if ((fp = fopen(sample, "r")) == NULL) {
		ok(1, "# SKIP %s not found", sample);
		return;
	}
	if ((out = open_memstream(&text, &tlen)) == NULL)
		exit(1);
	while (getline(&l, &lcap, fp) != -1) {
		if (l[0] == '#' && l[1] >= 'a' && l[1] <= 'z' &&
		    strstr(l, " =") != NULL) {
			fputs(l + 1, out);
			nset++;
		}
	}
	free(l);
	fclose(fp);
	fclose(out);
	if ((cf = conf_new()) == NULL)
		exit(1);
	path = write_file("sample.conf", text, 0600);
	free(text);
	is_int(load(cf, path, 0), 0, "sample config, uncommented, loads");
	diag(errbuf);
	is_int(nset, nkeys, "sample config lists every key");
	for (i = 0; i < nkeys; i++)
		if (strcmp(conf_get(cf, defaults[i][0]), defaults[i][1]) != 0)
			break;
	ok(i == nkeys, "sample config shows the defaults");
	conf_free(cf);
}

int
main(void)
{
	static const char *defaults[][2] = {
		{ "admins",		"root" },
		{ "allow_root_jobs",	"no" },
		{ "allow_suspend",	"yes" },
		{ "broker",		"localhost:7410" },
		{ "cgroup",		"auto" },
		{ "cluster_key",	"/etc/cilknow/cluster.key" },
		{ "cluster_pub",	"/etc/cilknow/cluster.pub" },
		{ "down_keep",		"86400" },
		{ "history_days",	"30" },
		{ "history_jobs",	"100000" },
		{ "input_devices",	"" },
		{ "jobs_max",		"10000" },
		{ "listen",		"" },
		{ "logind",		"system" },
		{ "munge_socket",	"/run/munge/munge.socket.2" },
		{ "node_fault_limit",	"3" },
		{ "nodes_max",		"100000" },
		{ "owners",		"" },
		{ "policy",		"targeted" },
		{ "quantum",		"5" },
		{ "register_interval",	"60" },
		{ "replay_window",	"30" },
		{ "root_restart_window", "86400" },
		{ "run_dir",		"/run/cilknow" },
		{ "sensors",		"system" },
		{ "service_user",	"cilknow" },
		{ "slots",		"auto" },
		{ "slots_by_load",	"yes" },
		{ "spool_min_free",	"1M" },
		{ "stage_max",		"64M" },
		{ "stage_max_task",	"256M" },
		{ "start_timeout",	"300" },
		{ "state_dir",		"/var/lib/cilknow" },
		{ "stop_grace",		"60" },
		{ "stop_grace_fast",	"1" },
		{ "suspend_max",	"600" },
		{ "timeout",		"3" },
		{ "user",		"" },
		{ "user_auth",		"user" },
		{ "user_jobs",		"64" },
		{ "user_key",		"~/.cilknow/id" },
		{ "user_keys",		"/etc/cilknow/users" },
		{ "user_register_rate",	"10" },
		{ "worker_cpu_idle",	"yes" },
		{ "worker_cpu_weight",	"1" },
		{ "worker_io_weight",	"1" },
		{ "worker_memory_high",	"40%" },
		{ "worker_memory_max",	"50%" },
		{ "worker_nice",		"19" },
		{ "worker_pids_max",	"4096" },
		{ "worker_sched_idle",	"yes" },
	};
	static const char *seconds_keys[] = { "quantum", "register_interval",
	    "replay_window", "stop_grace", "timeout" };
	static const double seconds_defaults[] = { 5, 60, 30, 60, 3 };
	static const char *path_keys[] = { "cluster_key", "cluster_pub",
	    "run_dir", "state_dir", "user_key", "user_keys" };
	static const char *names[] = { "good.conf", "dup.conf", "bad.conf",
	    "nokey.conf", "nul.conf", "gw.conf", "ow.conf", "ro.conf",
	    "owner.conf", "sample.conf" };
	struct conf *cf;
	struct passwd *pw;
	const char *path, *p;
	char err[256], buf[PATH_MAX], longval[CONF_VALUE_MAX + 8];
	char home[PATH_MAX], want[PATH_MAX + 64];
	char *dump = NULL, *line, *saveptr;
	char prev[64] = "";
	size_t i, dumplen = 0, nkeys;
	double d;
	FILE *fp;
	int rc, sorted;

	snprintf(tmpdir, sizeof(tmpdir), "%s/conf_test.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	if ((cf = conf_new()) == NULL) {
		perror("conf_new");
		return 1;
	}

	/* Defaults. */
	nkeys = sizeof(defaults) / sizeof(defaults[0]);
	for (i = 0; i < nkeys; i++)
		is_str(conf_get(cf, defaults[i][0]), defaults[i][1],
		    "default %s", defaults[i][0]);
	ok(conf_get(cf, "nosuchkey") == NULL, "unknown key: conf_get NULL");
	for (i = 0; i < 5; i++) {
		d = -1;
		ok(conf_get_seconds(cf, seconds_keys[i], &d) == 0 &&
		    d == seconds_defaults[i], "default %s is %g s",
		    seconds_keys[i], seconds_defaults[i]);
	}
	ok(conf_get_seconds(cf, "broker", &d) == -1, "broker is not seconds");
	ok(conf_get_seconds(cf, "nosuchkey", &d) == -1,
	    "unknown key is not seconds");

	/* Dump: every key once, sorted (checks the table order too). */
	fp = open_memstream(&dump, &dumplen);
	conf_dump(cf, fp);
	fclose(fp);
	is_int(count_lines(dump), nkeys, "dump has one line per key");
	sorted = 1;
	i = 0;
	for (line = strtok_r(dump, "\n", &saveptr); line != NULL;
	    line = strtok_r(NULL, "\n", &saveptr)) {
		if (strcmp(prev, line) >= 0)
			sorted = 0;
		strlcpy(prev, line, sizeof(prev));
		if (i < nkeys) {
			snprintf(want, sizeof(want), "%s = %s",
			    defaults[i][0], defaults[i][1]);
			if (strcmp(line, want) != 0)
				sorted = 0;
		}
		i++;
	}
	ok(sorted, "dump is sorted \"key = value\" lines");
	free(dump);
	for (i = 0; i < nkeys && conf_key_name(i) != NULL &&
	    strcmp(conf_key_name(i), defaults[i][0]) == 0; i++)
		continue;
	ok(i == nkeys && conf_key_name(nkeys) == NULL,
	    "conf_key_name walks every key in order");

	/* Seconds. */
	set_ok(cf, "quantum", "0.5");
	ok(conf_get_seconds(cf, "quantum", &d) == 0 && d == 0.5,
	    "quantum 0.5 read back");
	set_ok(cf, "quantum", ".25");
	set_ok(cf, "stop_grace", "86400");
	set_ok(cf, "timeout", "1e1");
	set_ok(cf, "register_interval", "10");
	set_bad(cf, "quantum", "0");
	set_bad(cf, "quantum", "-1");
	set_bad(cf, "quantum", "+1");
	set_bad(cf, "quantum", " 5");
	set_bad(cf, "quantum", "5s");
	set_bad(cf, "quantum", "abc");
	set_bad(cf, "quantum", "");
	set_bad(cf, "quantum", "nan");
	set_bad(cf, "quantum", "inf");
	set_bad(cf, "quantum", "0x10");
	set_bad(cf, "quantum", "1e999");
	set_bad(cf, "replay_window", "86400.5");
	set_bad(cf, "timeout", "1.2.3");

	/* Host and port. */
	set_ok(cf, "broker", "cluster-head.example.org");
	set_ok(cf, "broker", "10.0.0.1:65535");
	set_ok(cf, "broker", "host:1");
	set_ok(cf, "broker", "[::1]:7410");
	set_ok(cf, "broker", "[fe80::1%eth0]");
	set_ok(cf, "listen", "127.0.0.2:7411");
	set_ok(cf, "listen", "");
	set_bad(cf, "broker", "");
	set_bad(cf, "broker", ":80");
	set_bad(cf, "broker", "host:");
	set_bad(cf, "broker", "host:0");
	set_bad(cf, "broker", "host:65536");
	set_bad(cf, "broker", "host:+80");
	set_bad(cf, "broker", "host:http");
	set_bad(cf, "broker", "::1");
	set_bad(cf, "broker", "[::1");
	set_bad(cf, "broker", "[::1]80");
	set_bad(cf, "broker", "[nonsense]:80");
	set_bad(cf, "broker", "bad host");
	set_bad(cf, "listen", "a/b:1");

	/* Paths. */
	set_ok(cf, "state_dir", "/tmp/state");
	set_ok(cf, "run_dir", "relative/dir");
	set_bad(cf, "state_dir", "");
	set_bad(cf, "cluster_key", "/a\nb");
	memset(longval, 'x', sizeof(longval) - 1);
	longval[0] = '/';
	longval[sizeof(longval) - 1] = '\0';
	set_bad(cf, "state_dir", longval);
	longval[CONF_VALUE_MAX - 1] = '\0';
	set_ok(cf, "state_dir", longval);

	/* Sensors. */
	set_ok(cf, "sensors", "file:/tmp/sensors");
	set_ok(cf, "slots", "auto");
	set_ok(cf, "slots", "16");
	set_ok(cf, "slots", "256");
	set_bad(cf, "slots", "0");
	set_bad(cf, "slots", "257");
	set_bad(cf, "slots", "4x");
	set_bad(cf, "slots", "");
	set_ok(cf, "service_user", "_cilknow");
	set_bad(cf, "service_user", "");
	set_bad(cf, "service_user", "Bad User");
	set_ok(cf, "sensors", "system");
	set_bad(cf, "sensors", "");
	set_bad(cf, "sensors", "file:");
	set_bad(cf, "sensors", "System");
	set_bad(cf, "sensors", "files:/x");

	/* User names. */
	set_ok(cf, "user", "alice");
	set_ok(cf, "user", "_svc.x-1");
	set_ok(cf, "user", "");
	set_bad(cf, "user", "Alice");
	set_bad(cf, "user", "1abc");
	set_bad(cf, "user", "-x");
	set_bad(cf, "user", "a b");
	set_bad(cf, "user", "abcdefghijklmnopqrstuvwxyz0123456");
	set_ok(cf, "user_auth", "munge");
	set_ok(cf, "user_auth", "user,munge");
	set_ok(cf, "user_auth", "munge,user");
	set_bad(cf, "user_auth", "kerberos");
	set_bad(cf, "user_auth", "");

	/* Lists of user names. */
	set_ok(cf, "admins", "");
	is_str(conf_get(cf, "admins"), "", "admins may be empty");
	set_ok(cf, "admins", "alice,bob");
	set_ok(cf, "owners", " alice ,\tbob ");
	is_str(conf_get(cf, "owners"), "alice,bob", "list normalised");
	set_bad(cf, "owners", "alice,,bob");
	set_bad(cf, "owners", "alice,");
	set_bad(cf, "owners", ",bob");
	set_ok(cf, "policy", "thesis");
	set_bad(cf, "policy", "naive");
	set_ok(cf, "allow_root_jobs", "yes");
	set_ok(cf, "allow_root_jobs", "no");
	set_bad(cf, "allow_root_jobs", "true");
	set_bad(cf, "allow_root_jobs", "");
	set_bad(cf, "admins", "Root");
	set_bad(cf, "admins", "a;b");

	/* Unknown key through conf_set. */
	errno = 0;
	ok(conf_set(cf, "quantom", "5", err, sizeof(err)) == -1 &&
	    errno == EINVAL && strstr(err, "unknown key") != NULL &&
	    strstr(err, "quantom") != NULL, "unknown key refused: %s", err);
	ok(conf_set(cf, "quantom", "5", NULL, 0) == -1,
	    "errors without a buffer");
	conf_free(cf);

	/* A good file: comments, blanks, spacing, trailing comments. */
	cf = conf_new();
	path = write_file("good.conf",
	    "# cilknow test configuration\n"
	    "\n"
	    "   \t\n"
	    "broker = head:7410\n"
	    "quantum=2.5\n"
	    "\t  stop_grace\t=\t10   # seconds\n"
	    "  # indented comment\n"
	    "sensors = file:/x#y\n"
	    "state_dir = /var/tmp/s # a comment\n"
	    "listen =\n"
	    "owners = alice, bob\n"
	    "admins =   # nobody\n"
	    "run_dir = /run/c\r\n"
	    "user_keys = /k", 0644);
	rc = load(cf, path, 0);
	is_int(rc, 0, "good file loads");
	diag(errbuf);
	is_str(errbuf, "", "good file: no messages");
	is_str(conf_get(cf, "broker"), "head:7410", "file: broker");
	is_str(conf_get(cf, "quantum"), "2.5", "file: no blanks around '='");
	is_str(conf_get(cf, "stop_grace"), "10", "file: tabs, trailing "
	    "comment");
	is_str(conf_get(cf, "sensors"), "file:/x#y", "file: '#' inside a "
	    "value is kept");
	is_str(conf_get(cf, "state_dir"), "/var/tmp/s", "file: ' #' starts a "
	    "comment");
	is_str(conf_get(cf, "listen"), "", "file: empty value");
	is_str(conf_get(cf, "owners"), "alice,bob", "file: list");
	is_str(conf_get(cf, "admins"), "", "file: value that is a comment");
	is_str(conf_get(cf, "run_dir"), "/run/c", "file: CRLF line");
	is_str(conf_get(cf, "user_keys"), "/k", "file: last line without "
	    "newline");
	is_str(conf_get(cf, "timeout"), "3", "file: untouched key keeps "
	    "default");

	/* Duplicate keys: the later one wins. */
	path = write_file("dup.conf", "quantum = 1\nquantum = 7\n", 0600);
	is_int(load(cf, path, 0), 0, "duplicate key is not an error");
	is_str(conf_get(cf, "quantum"), "7", "duplicate key: later wins");

	/* -o overrides after the file win. */
	is_int(conf_override(cf, "quantum=2", err, sizeof(err)), 0,
	    "-o quantum=2");
	is_str(conf_get(cf, "quantum"), "2", "-o overrides the file");
	is_int(conf_override(cf, " timeout = 0.5 ", err, sizeof(err)), 0,
	    "-o with blanks");
	is_str(conf_get(cf, "timeout"), "0.5", "-o blanks dropped");
	is_int(conf_override(cf, "listen=", err, sizeof(err)), 0,
	    "-o with empty value");
	is_int(conf_override(cf, "sensors=file:/a=b", err, sizeof(err)), 0,
	    "-o value containing '='");
	is_str(conf_get(cf, "sensors"), "file:/a=b", "-o splits at the first "
	    "'='");
	ok(conf_override(cf, "quantum", err, sizeof(err)) == -1 &&
	    strstr(err, "KEY=VALUE") != NULL, "-o without '=': %s", err);
	ok(conf_override(cf, "=5", err, sizeof(err)) == -1,
	    "-o without key: %s", err);
	ok(conf_override(cf, "nosuch=1", err, sizeof(err)) == -1 &&
	    strstr(err, "unknown key") != NULL, "-o unknown key: %s", err);
	ok(conf_override(cf, "quantum=abc", err, sizeof(err)) == -1 &&
	    strncmp(err, "quantum: ", 9) == 0, "-o bad value: %s", err);
	is_str(conf_get(cf, "quantum"), "2", "-o bad value keeps the old one");
	conf_free(cf);

	/* All errors collected, each with its file:line. */
	cf = conf_new();
	path = write_file("bad.conf",
	    "# three bad lines, two good ones\n"
	    "quantum = fast\n"
	    "broker = head:7410\n"
	    "no equals sign here\n"
	    "\n"
	    "colour = blue\n"
	    "stop_grace = 9\n", 0600);
	rc = load(cf, path, 0);
	is_int(rc, 3, "three bad lines give 3");
	is_int(count_lines(errbuf), 3, "three messages");
	snprintf(buf, sizeof(buf), "%s:2: quantum: ", path);
	ok(strstr(errbuf, buf) != NULL, "bad value at line 2");
	snprintf(buf, sizeof(buf), "%s:4: missing '='", path);
	ok(strstr(errbuf, buf) != NULL, "missing '=' at line 4");
	snprintf(buf, sizeof(buf), "%s:6: unknown key \"colour\"", path);
	ok(strstr(errbuf, buf) != NULL, "unknown key at line 6");
	diag(errbuf);
	is_str(conf_get(cf, "broker"), "head:7410", "good lines still parsed");
	is_str(conf_get(cf, "stop_grace"), "9", "lines after errors parsed");
	is_str(conf_get(cf, "quantum"), "5", "bad value keeps the default");

	path = write_file("nokey.conf", "= 5\n", 0600);
	is_int(load(cf, path, 0), 1, "missing key is an error");
	ok(strstr(errbuf, ":1: missing key") != NULL, "missing key message");

	path = write_file("nul.conf", "quantum = 5\n", 0600);
	if ((fp = fopen(path, "w")) != NULL) {
		fwrite("quantum = 5\0junk\nquantum = 6\n", 1, 29, fp);
		fclose(fp);
	}
	is_int(load(cf, path, 0), 1, "NUL byte in a line is an error");
	ok(strstr(errbuf, ":1: ") != NULL, "NUL byte at line 1");
	is_str(conf_get(cf, "quantum"), "6", "line after NUL parsed");

	ok(conf_load_file(cf, path, 0, NULL) == 1, "errors counted with "
	    "errs NULL");

	/* Permissions. */
	path = write_file("gw.conf", "quantum = 1\n", 0620);
	rc = load(cf, path, 0);
	is_int(rc, 1, "group-writable file refused");
	ok(strstr(errbuf, "writable") != NULL && strncmp(errbuf, path,
	    strlen(path)) == 0, "refusal names the file");
	diag(errbuf);
	is_str(conf_get(cf, "quantum"), "6", "refused file not applied");
	path = write_file("ow.conf", "quantum = 1\n", 0602);
	is_int(load(cf, path, 0), 1, "world-writable file refused");
	path = write_file("ro.conf", "quantum = 1\n", 0444);
	is_int(load(cf, path, 0), 0, "read-only file accepted");
	if (geteuid() == 0) {
		path = write_file("owner.conf", "quantum = 1\n", 0644);
		if (chown(path, 65534, 65534) == 0) {
			is_int(load(cf, path, 0), 1,
			    "file owned by another user refused");
		} else
			ok(1, "# SKIP chown failed");
	} else
		ok(1, "# SKIP owner check needs root");
	ok(load(cf, tmpdir, 0) == 1 && strstr(errbuf, "regular") != NULL,
	    "directory refused");

	/* Missing files. */
	snprintf(buf, sizeof(buf), "%s/missing.conf", tmpdir);
	is_int(load(cf, buf, 1), 0, "missing file with missing_ok");
	errno = 0;
	rc = load(cf, buf, 0);
	ok(rc == -1 && errno == ENOENT, "missing file without missing_ok");
	conf_free(cf);

	/* "~/" expansion. */
	cf = conf_new();
	p = getenv("HOME");
	strlcpy(home, p != NULL ? p : "", sizeof(home));
	setenv("HOME", "/home/tester", 1);
	ok(conf_get_path(cf, "user_key", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/home/tester/.cilknow/id") == 0,
	    "~/ expanded with $HOME: %s", buf);
	setenv("HOME", "/home/tester/", 1);
	ok(conf_get_path(cf, "user_key", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/home/tester/.cilknow/id") == 0,
	    "$HOME with trailing slash: %s", buf);
	setenv("HOME", "/", 1);
	ok(conf_get_path(cf, "user_key", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/.cilknow/id") == 0, "$HOME is /: %s", buf);
	unsetenv("HOME");
	pw = getpwuid(getuid());
	if (pw != NULL && pw->pw_dir[0] == '/') {
		if (strcmp(pw->pw_dir, "/") == 0)
			strlcpy(want, "/.cilknow/id", sizeof(want));
		else
			snprintf(want, sizeof(want), "%s/.cilknow/id",
			    pw->pw_dir);
		ok(conf_get_path(cf, "user_key", buf, sizeof(buf)) == 0 &&
		    strcmp(buf, want) == 0,
		    "no $HOME: password entry used: %s", buf);
	} else
		ok(1, "# SKIP no password entry");
	setenv("HOME", "/home/tester", 1);
	ok(conf_get_path(cf, "state_dir", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/var/lib/cilknow") == 0, "plain path copied");
	set_ok(cf, "state_dir", "~/state");
	ok(conf_get_path(cf, "state_dir", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "/home/tester/state") == 0, "~/ in any path key");
	set_ok(cf, "state_dir", "~other/state");
	ok(conf_get_path(cf, "state_dir", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "~other/state") == 0, "~user not expanded");
	errno = 0;
	ok(conf_get_path(cf, "user_key", buf, 10) == -1 &&
	    errno == ENAMETOOLONG, "too small a buffer fails");
	ok(conf_get_path(cf, "quantum", buf, sizeof(buf)) == -1,
	    "conf_get_path on a non-path key fails");
	for (i = 0; i < sizeof(path_keys) / sizeof(path_keys[0]); i++)
		ok(conf_get_path(cf, path_keys[i], buf, sizeof(buf)) == 0,
		    "conf_get_path(%s)", path_keys[i]);
	if (home[0] != '\0')
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	conf_free(cf);

	sample_test(defaults, nkeys);

	/* Default path. */
	unsetenv("CILKNOW_CONF");
	is_str(conf_default_path(), CONF_DEFAULT_PATH, "default path");
	setenv("CILKNOW_CONF", "", 1);
	is_str(conf_default_path(), CONF_DEFAULT_PATH, "empty CILKNOW_CONF "
	    "ignored");
	setenv("CILKNOW_CONF", "/tmp/x.conf", 1);
	is_str(conf_default_path(), "/tmp/x.conf", "CILKNOW_CONF used");
	unsetenv("CILKNOW_CONF");

	/* Clean up. */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(buf, sizeof(buf), "%s/%s", tmpdir, names[i]);
		unlink(buf);
	}
	ok(rmdir(tmpdir) == 0, "temporary directory removed");
	{
		unsigned u = 0;
		char e[256];
		struct conf *c2 = conf_new();

		ok(c2 != NULL && conf_get_count(c2, "user_jobs", &u) == 0 &&
		    u == 64, "user_jobs defaults to 64");
		ok(conf_set(c2, "user_jobs", "7", e, sizeof(e)) == 0 &&
		    conf_get_count(c2, "user_jobs", &u) == 0 && u == 7,
		    "user_jobs = 7");
		ok(conf_set(c2, "user_jobs", "1000000", e, sizeof(e)) == 0,
		    "a count of 1000000 is the largest");
		ok(conf_set(c2, "user_jobs", "1000001", e, sizeof(e)) == -1 &&
		    conf_set(c2, "user_jobs", "0", e, sizeof(e)) == -1 &&
		    conf_set(c2, "user_jobs", "07", e, sizeof(e)) == -1 &&
		    conf_set(c2, "user_jobs", "-1", e, sizeof(e)) == -1 &&
		    conf_set(c2, "user_jobs", "3x", e, sizeof(e)) == -1 &&
		    conf_set(c2, "user_jobs", "", e, sizeof(e)) == -1,
		    "0, a leading zero, a sign, junk and empty are refused");
		ok(strstr(e, "expected a whole number from 1 to 1000000") !=
		    NULL, "saying what is expected (%s)", e);
		ok(conf_get_count(c2, "quantum", &u) == -1,
		    "conf_get_count of a seconds key is refused");
		conf_free(c2);
	}
	return tap_done();
}
