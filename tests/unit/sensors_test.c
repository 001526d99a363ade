/*
 * sensors_test — the sensor file hook, the /proc readers on fixture
 * files, utmp records, tty idle times, and the input-event reader fed
 * through a FIFO.
 */
#include "sensors.h"

#include <sys/stat.h>

#include <linux/input.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utmpx.h>

#include "tap.h"

static char tmpdir[] = "/tmp/sensors_test.XXXXXX";
static char path[512];

static const char *
tmp(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static int
write_file(const char *p, const void *buf, size_t len)
{
	FILE *fp;
	size_t n;

	if ((fp = fopen(p, "w")) == NULL)
		return -1;
	n = fwrite(buf, 1, len, fp);
	fclose(fp);
	return n == len ? 0 : -1;
}

static int
parse(const char *text, struct pred_meas *m, char *err, size_t errlen)
{
	err[0] = '\0';
	return sensors_file_parse(text, strlen(text), "sensors", m, err,
	    errlen);
}

static void
bad(const char *text, const char *msg)
{
	struct pred_meas m, orig;
	char err[256];

	memset(&m, 0x5a, sizeof(m));
	orig = m;
	ok(parse(text, &m, err, sizeof(err)) == -1, "sensor file rejects "
	    "%s", msg);
	is_str(err, msg, "  message");
	ok(memcmp(&m, &orig, sizeof(m)) == 0, "  measurement unchanged");
}

static void
test_file(void)
{
	struct pred_meas m;
	char err[256], *big;

	ok(parse("", &m, err, sizeof(err)) == 0, "empty sensor file");
	ok(m.pm_idle == SENSORS_IDLE_UNATTENDED && m.pm_nusers == 0 &&
	    m.pm_load[0] == 0 && m.pm_load[1] == 0 && m.pm_load[2] == 0 &&
	    m.pm_mem == -1 && m.pm_tod == -1 && m.pm_nuser == 0,
	    "  defaults: unattended, no users, load 0, memory and time "
	    "unknown");

	ok(parse("# node 3\n"
	    "idletime=12.5\n"
	    "\n"
	    "users=3\r\n"
	    "  load=0.52,0.58,.5  \n"
	    "mem=2048\n"
	    "loggedin=ann,bob:30,ann:7\n"
	    "time=23:05", &m, err, sizeof(err)) == 0,
	    "full sensor file: %s", err);
	ok(m.pm_idle == 12.5 && m.pm_nusers == 3 && m.pm_mem == 2048 &&
	    m.pm_tod == 23 * 60 + 5, "  idletime, users, mem, time");
	ok(fabs(m.pm_load[0] - 0.52) < 1e-12 &&
	    fabs(m.pm_load[1] - 0.58) < 1e-12 &&
	    fabs(m.pm_load[2] - 0.5) < 1e-12, "  load");
	ok(m.pm_nuser == 2 && strcmp(m.pm_user[0].pu_name, "ann") == 0 &&
	    m.pm_user[0].pu_idle == 7 &&
	    strcmp(m.pm_user[1].pu_name, "bob") == 0 &&
	    m.pm_user[1].pu_idle == 30,
	    "  loggedin: distinct users, least idle time per user");

	ok(parse("loggedin=ann,bob\nidletime=900\n", &m, err,
	    sizeof(err)) == 0 && m.pm_nusers == 2 &&
	    m.pm_user[0].pu_idle == 900 && m.pm_user[1].pu_idle == 900,
	    "users defaults to loggedin's count, user idle to idletime");
	ok(parse("idletime=0\n", &m, err, sizeof(err)) == 0 &&
	    m.pm_idle == 0 && m.pm_load[0] == 0,
	    "'idletime=0' alone: the owner is back");
	ok(parse("loggedin=\n", &m, err, sizeof(err)) == 0 &&
	    m.pm_nuser == 0, "empty loggedin");

	bad("idletime=5\nidle=5\n", "sensors:2: unknown key 'idle'");
	bad("idletime=5x\n", "sensors:1: bad value '5x' for idletime");
	bad("users=-1\n", "sensors:1: bad value '-1' for users");
	bad("\n\nload=0.5,0.5\n", "sensors:3: load needs three numbers");
	bad("load=0.5,x,0.5\n", "sensors:1: bad number 'x' in load");
	bad("load=1,1,1,1\n", "sensors:1: bad value '1,1,1,1' for load");
	bad("mem=1.5\n", "sensors:1: bad value '1.5' for mem");
	bad("time=24:00\n", "sensors:1: bad value '24:00' for time");
	bad("idletime=5\nidletime=6\n", "sensors:2: duplicate key 'idletime'");
	bad("just some words\n", "sensors:1: expected key=value, not 'just "
	    "some words'");
	bad("loggedin=ann,b@d\n", "sensors:1: bad user name 'b@d' in "
	    "loggedin");
	bad("loggedin=ann:x\n", "sensors:1: bad idle time 'ann:x' in "
	    "loggedin");
	bad("loggedin=ann,\n", "sensors:1: empty user name at end of "
	    "loggedin");

	big = malloc(SENSORS_FILE_MAX + 2);
	memset(big, '#', SENSORS_FILE_MAX + 1);
	big[SENSORS_FILE_MAX + 1] = '\0';
	ok(sensors_file_parse(big, SENSORS_FILE_MAX + 1, "sensors", &m, err,
	    sizeof(err)) == -1 && errno == EFBIG, "a file too large is "
	    "refused");
	ok(write_file(tmp("big"), big, SENSORS_FILE_MAX + 1) == 0 &&
	    sensors_file_read(path, &m, err, sizeof(err)) == -1 &&
	    errno == EFBIG, "  also when read from disk");
	unlink(path);
	memset(big, 'x', SENSORS_LINE_MAX + 1);
	big[SENSORS_LINE_MAX + 1] = '\0';
	ok(parse(big, &m, err, sizeof(err)) == -1 &&
	    strcmp(err, "sensors:1: line too long") == 0, "a line too long "
	    "is refused");
	free(big);
	ok(sensors_file_parse("idletime=1\0x", 12, "s", &m, err,
	    sizeof(err)) == -1 && strcmp(err, "s:1: NUL byte") == 0,
	    "NUL bytes are refused");

	write_file(tmp("sensors"), "idletime=30\nload=1,2,3\n", 23);
	ok(sensors_file_read(path, &m, err, sizeof(err)) == 0 &&
	    m.pm_idle == 30 && m.pm_load[2] == 3, "sensors_file_read");
	write_file(path, "idletime=30\nbogus\n", 18);
	{
		char want[700], e2[700];

		snprintf(want, sizeof(want), "%s:2: expected key=value, not "
		    "'bogus'", path);
		ok(sensors_file_read(path, &m, e2, sizeof(e2)) == -1 &&
		    strcmp(e2, want) == 0, "errors name the path: %s", e2);
	}
	unlink(path);
	ok(sensors_file_read(path, &m, err, sizeof(err)) == -1 &&
	    errno == ENOENT, "missing file: ENOENT");
	ok(sensors_file_read(tmpdir, &m, err, sizeof(err)) == -1 &&
	    errno == EINVAL, "a directory is refused");
}

static void
test_proc(void)
{
	static const char meminfo[] =
	    "MemTotal:       16305340 kB\n"
	    "MemFree:         1022244 kB\n"
	    "MemAvailable:    8388608 kB\n"
	    "Buffers:          524288 kB\n"
	    "Cached:          6291456 kB\n"
	    "SwapCached:            0 kB\n"
	    "HugePages_Total:       0\n";
	static const char meminfo_old[] =
	    "MemTotal:       16305340 kB\n"
	    "MemFree:         1048576 kB\n"
	    "Buffers:          524288 kB\n"
	    "Cached:          6291456 kB\n";
	double load[3], mb;

	write_file(tmp("loadavg"), "0.52 0.58 0.59 1/467 12345\n", 27);
	ok(sensors_read_loadavg(path, load) == 0 &&
	    fabs(load[0] - 0.52) < 1e-12 && fabs(load[1] - 0.58) < 1e-12 &&
	    fabs(load[2] - 0.59) < 1e-12, "loadavg fixture");
	write_file(path, "12.00 7.50 130.25 9/900 1\n", 26);
	ok(sensors_read_loadavg(path, load) == 0 && load[0] == 12 &&
	    load[1] == 7.5 && load[2] == 130.25, "loadavg above 1");
	write_file(path, "0.52 0.5x 0.59 1/467 12345\n", 27);
	ok(sensors_read_loadavg(path, load) == -1 && errno == EINVAL,
	    "bad loadavg");
	write_file(path, "0.52 0.58\n", 10);
	ok(sensors_read_loadavg(path, load) == -1 && errno == EINVAL,
	    "short loadavg");
	unlink(path);
	ok(sensors_read_loadavg(path, load) == -1 && errno == ENOENT,
	    "missing loadavg");

	write_file(tmp("meminfo"), meminfo, sizeof(meminfo) - 1);
	ok(sensors_read_meminfo(path, &mb) == 0 && mb == 8192,
	    "meminfo: MemAvailable in MB");
	write_file(path, meminfo_old, sizeof(meminfo_old) - 1);
	ok(sensors_read_meminfo(path, &mb) == 0 && mb == 1024 + 512 + 6144,
	    "meminfo without MemAvailable: MemFree + Buffers + Cached");
	write_file(path, "MemTotal: 5 kB\n", 15);
	ok(sensors_read_meminfo(path, &mb) == -1 && errno == ENOENT,
	    "meminfo without any of them: ENOENT");
	write_file(path, "MemAvailable: 12x kB\n", 21);
	ok(sensors_read_meminfo(path, &mb) == -1 && errno == EINVAL,
	    "bad meminfo value");
	write_file(path, "MemAvailable: 1 kB\nMemAvailable: 2 kB\n", 38);
	ok(sensors_read_meminfo(path, &mb) == -1 && errno == EINVAL,
	    "duplicate meminfo key");
	unlink(path);
}

static void
utmp_rec(struct utmpx *u, short type, const char *user, const char *line,
    pid_t pid)
{
	memset(u, 0, sizeof(*u));
	u->ut_type = type;
	u->ut_pid = pid;
	if (user != NULL)
		strncpy(u->ut_user, user, sizeof(u->ut_user));
	if (line != NULL)
		strncpy(u->ut_line, line, sizeof(u->ut_line));
}

static int
set_atime(const char *p, time_t when)
{
	struct timespec ts[2];

	ts[0].tv_sec = when;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = 0;
	ts[1].tv_nsec = UTIME_OMIT;
	return utimensat(AT_FDCWD, p, ts, 0);
}

static void
test_utmp_tty(void)
{
	struct utmpx recs[7];
	struct sensors_session s[8];
	struct pred_meas m;
	struct timespec now;
	char dev[512], p[600], longname[40];
	double idle;
	size_t n;
	FILE *fp;
	int rc;

	memset(longname, 'z', sizeof(longname));
	utmp_rec(&recs[0], BOOT_TIME, NULL, "~", 0);
	utmp_rec(&recs[1], LOGIN_PROCESS, "LOGIN", "tty2", 100);
	utmp_rec(&recs[2], USER_PROCESS, "ann", "pts/1", 101);
	utmp_rec(&recs[3], USER_PROCESS, "ann", "tty1", 102);
	utmp_rec(&recs[4], DEAD_PROCESS, "", "pts/7", 0);
	utmp_rec(&recs[5], USER_PROCESS, "bob", ":0", 103);
	utmp_rec(&recs[6], USER_PROCESS, NULL, "pts/9", 104);
	memcpy(recs[6].ut_user, longname, sizeof(recs[6].ut_user));
	tmp("utmp");
	fp = fopen(path, "w");
	fwrite(recs, sizeof(recs[0]), 7, fp);
	fwrite(&recs[2], 100, 1, fp);		/* a partial record */
	fclose(fp);
	ok(sensors_read_utmp(path, s, 8, &n) == 0 && n == 4,
	    "utmp: four USER_PROCESS records, partial record ignored");
	ok(strcmp(s[0].ss_user, "ann") == 0 &&
	    strcmp(s[0].ss_line, "pts/1") == 0 && s[0].ss_pid == 101 &&
	    strcmp(s[1].ss_line, "tty1") == 0 &&
	    strcmp(s[2].ss_user, "bob") == 0 &&
	    strcmp(s[2].ss_line, ":0") == 0, "  users, ttys and pids");
	ok(strlen(s[3].ss_user) == 32 && s[3].ss_user[31] == 'z',
	    "  a user name filling ut_user is terminated");
	ok(sensors_read_utmp(path, s, 3, &n) == -1 && errno == E2BIG,
	    "more sessions than room: E2BIG");
	unlink(path);
	ok(sensors_read_utmp(path, s, 8, &n) == -1 && errno == ENOENT,
	    "missing utmp: ENOENT");

	/* ttys under a fake /dev */
	snprintf(dev, sizeof(dev), "%s/dev", tmpdir);
	mkdir(dev, 0700);
	snprintf(p, sizeof(p), "%s/pts", dev);
	mkdir(p, 0700);
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(p, sizeof(p), "%s/pts/1", dev);
	write_file(p, "", 0);
	set_atime(p, now.tv_sec - 100);
	snprintf(p, sizeof(p), "%s/tty1", dev);
	write_file(p, "", 0);
	set_atime(p, now.tv_sec - 5);
	idle = -1;
	rc = sensors_tty_idle(dev, "pts/1", &now, &idle);
	ok(rc == 0 && idle >= 100 && idle < 101, "tty idle: now - atime "
	    "(%.2f)", idle);
	ok(sensors_tty_idle(dev, ":0", &now, &idle) == -1 && errno == ENOENT,
	    "an X display has no tty: ENOENT");
	ok(sensors_tty_idle(dev, "../x", &now, &idle) == -1 &&
	    errno == EINVAL, "'../x' is refused");
	ok(sensors_tty_idle(dev, "pts/../../x", &now, &idle) == -1 &&
	    errno == EINVAL, "'pts/../../x' is refused");
	ok(sensors_tty_idle(dev, "/etc/passwd", &now, &idle) == -1 &&
	    errno == EINVAL, "an absolute path is refused");
	snprintf(p, sizeof(p), "%s/tty1", dev);
	set_atime(p, now.tv_sec + 60);
	ok(sensors_tty_idle(dev, "tty1", &now, &idle) == 0 && idle == 0,
	    "an atime in the future counts as 0");
	set_atime(p, now.tv_sec - 5);

	sensors_meas_init(&m);
	m.pm_idle = 50;				/* the input devices */
	ok(sensors_users(&m, s, 3, dev, &now) == 0, "sensors_users");
	is_int(m.pm_nusers, 3, "  three sessions");
	ok(m.pm_nuser == 2 && strcmp(m.pm_user[0].pu_name, "ann") == 0 &&
	    m.pm_user[0].pu_idle >= 5 && m.pm_user[0].pu_idle < 6,
	    "  ann: the least of her ttys (%.2f)", m.pm_user[0].pu_idle);
	ok(strcmp(m.pm_user[1].pu_name, "bob") == 0 &&
	    m.pm_user[1].pu_idle == 50,
	    "  bob on :0 gets the input devices' idle time");
	ok(m.pm_idle >= 5 && m.pm_idle < 6,
	    "  the node's idle time covers the ttys (%.2f)", m.pm_idle);

	snprintf(p, sizeof(p), "%s/tty1", dev);
	unlink(p);
	snprintf(p, sizeof(p), "%s/pts/1", dev);
	unlink(p);
	snprintf(p, sizeof(p), "%s/pts", dev);
	rmdir(p);
	rmdir(dev);
}

static void
ev(struct input_event *e, unsigned short type, unsigned short code, int val)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->code = code;
	e->value = val;
}

static void
test_input(void)
{
	struct sensors_input si;
	struct input_event e[2], many[200];
	const unsigned char *b;
	int fd, wfd, i, n;
	struct stat st;

	alarm(20);			/* a blocking read would hang here */
	tmp("events");
	ok(mkfifo(path, 0600) == 0, "mkfifo");
	ok((fd = sensors_input_open(&si, path, 100.0)) >= 0,
	    "input reader opens a FIFO without a writer");
	ok((fcntl(fd, F_GETFL) & O_NONBLOCK) != 0, "  non-blocking");
	ok(fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode), "  the fd to poll");
	ok((wfd = open(path, O_WRONLY | O_NONBLOCK)) >= 0, "writer opens");
	is_int(sensors_input_read(&si, 101.0), 0, "nothing to read: 0, "
	    "no blocking");
	ok(sensors_input_idle(&si, 130.0) == 30, "  idle since open (30 s)");

	ev(&e[0], EV_KEY, KEY_A, 1);
	ev(&e[1], EV_SYN, SYN_REPORT, 0);
	write(wfd, e, sizeof(e));
	is_int(sensors_input_read(&si, 130.0), 1, "a key press: one event "
	    "(SYN does not count)");
	ok(sensors_input_idle(&si, 130.0) == 0 &&
	    sensors_input_idle(&si, 142.5) == 12.5, "  idle time reset");

	ev(&e[0], EV_SYN, SYN_REPORT, 0);
	ev(&e[1], EV_LED, LED_CAPSL, 1);
	write(wfd, e, sizeof(e));
	is_int(sensors_input_read(&si, 150.0), 0, "SYN and LED are not "
	    "input");
	ok(sensors_input_idle(&si, 150.0) == 20, "  idle time kept");

	/* partial records */
	ev(&e[0], EV_REL, REL_X, 3);
	ev(&e[1], EV_REL, REL_Y, -2);
	b = (const unsigned char *)e;
	write(wfd, b, 10);
	is_int(sensors_input_read(&si, 160.0), 0, "10 bytes of a record: "
	    "no event yet");
	is_int(si.inp_have, 10, "  10 bytes kept");
	ok(sensors_input_idle(&si, 160.0) == 30, "  idle time kept");
	write(wfd, b + 10, sizeof(e) - 10 - 3);
	is_int(sensors_input_read(&si, 161.0), 1, "the rest and most of "
	    "another: one event");
	is_int(si.inp_have, sizeof(e[0]) - 3, "  the partial second record "
	    "kept");
	write(wfd, b + sizeof(e) - 3, 3);
	is_int(sensors_input_read(&si, 162.0), 1, "its last 3 bytes: the "
	    "second event");
	ok(si.inp_have == 0 && sensors_input_idle(&si, 162.0) == 0 &&
	    si.inp_events == 3, "  nothing left over; three events so far");

	for (i = 0; i < 200; i++)
		ev(&many[i], i % 2 ? EV_SYN : EV_ABS, ABS_X, i);
	write(wfd, many, sizeof(many));
	is_int(sensors_input_read(&si, 170.0), 100, "a burst of 200 records "
	    "(100 ABS)");

	write(wfd, b, 5);			/* the writer dies mid-record */
	close(wfd);
	n = sensors_input_read(&si, 175.0);
	ok(n == 0 && si.inp_eof && si.inp_have == 0, "writer gone: end of "
	    "file flagged, its partial record dropped");
	ok((wfd = open(path, O_WRONLY | O_NONBLOCK)) >= 0, "a new writer");
	ev(&e[0], EV_MSC, MSC_SCAN, 30);
	write(wfd, e, sizeof(e[0]));
	ok(sensors_input_read(&si, 180.0) == 1 && !si.inp_eof,
	    "  events again, end of file cleared");
	close(wfd);

	sensors_input_close(&si);
	ok(si.inp_fd == -1 && sensors_input_read(&si, 190.0) == -1 &&
	    errno == EINVAL, "closed reader refuses to read");
	sensors_input_close(&si);
	ok(sensors_input_open(&si, tmp("nonexistent"), 0) == -1 &&
	    errno == ENOENT, "missing device: ENOENT");
	unlink(tmp("events"));
	alarm(0);
}

static void
test_tod(void)
{
	int min;

	setenv("TZ", "UTC", 1);
	tzset();
	ok(sensors_tod(86400 * 3 + 23 * 3600 + 5 * 60 + 59, &min) == 0 &&
	    min == 23 * 60 + 5, "sensors_tod: 23:05 UTC");
	setenv("TZ", "UTC-2", 1);	/* two hours east */
	tzset();
	ok(sensors_tod(86400 * 3 + 23 * 3600, &min) == 0 && min == 60,
	    "  local time wraps midnight");
}

/* The newest login or logout of a wtmp file, read from its end. */
static void
test_wtmp(void)
{
	struct utmpx recs[5];
	double when;
	FILE *fp;

	utmp_rec(&recs[0], BOOT_TIME, NULL, "~", 0);
	recs[0].ut_tv.tv_sec = 1000;
	utmp_rec(&recs[1], USER_PROCESS, "ann", "pts/1", 101);
	recs[1].ut_tv.tv_sec = 2000;
	utmp_rec(&recs[2], DEAD_PROCESS, "", "pts/1", 101);
	recs[2].ut_tv.tv_sec = 3000;
	recs[2].ut_tv.tv_usec = 500000;
	utmp_rec(&recs[3], BOOT_TIME, NULL, "~", 0);
	recs[3].ut_tv.tv_sec = 4000;
	utmp_rec(&recs[4], RUN_LVL, "runlevel", "~", 0);
	recs[4].ut_tv.tv_sec = 4001;
	tmp("wtmp");
	fp = fopen(path, "w");
	fwrite(recs, sizeof(recs[0]), 5, fp);
	fwrite(&recs[1], 100, 1, fp);		/* a partial record */
	fclose(fp);
	ok(sensors_read_last_session(path, &when) == 0 && when == 3000.5,
	    "wtmp: the newest logout, past boot records and a partial one");
	fp = fopen(path, "w");
	fwrite(recs, sizeof(recs[0]), 2, fp);
	fclose(fp);
	ok(sensors_read_last_session(path, &when) == 0 && when == 2000,
	    "wtmp: a login counts too");
	fp = fopen(path, "w");
	fwrite(&recs[3], sizeof(recs[0]), 2, fp);
	fclose(fp);
	ok(sensors_read_last_session(path, &when) == -1 && errno == ENOENT,
	    "wtmp without a login or logout: ENOENT (never the boot)");
	fp = fopen(path, "w");
	fclose(fp);
	ok(sensors_read_last_session(path, &when) == -1 && errno == ENOENT,
	    "empty wtmp: ENOENT");
	unlink(path);
	ok(sensors_read_last_session(path, &when) == -1 && errno == ENOENT,
	    "missing wtmp: ENOENT");
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_file();
	test_proc();
	test_utmp_tty();
	test_wtmp();
	test_input();
	test_tod();
	ok(rmdir(tmpdir) == 0, "temporary directory cleaned up");
	return tap_done();
}
