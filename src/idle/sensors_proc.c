/*
 * sensors_proc — Linux system readers: load averages, free memory, the
 * login sessions of utmp and their ttys' idle times.
 */
#include "sensors.h"
#include "readfile.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utmpx.h>

#define LOADAVG_MAX	1000000000LL	/* thousandths */
#define MEMINFO_KB_MAX	(1LL << 50)

int
sensors_read_loadavg(const char *path, double load[3])
{
	char buf[256];
	const char *p;
	size_t len;
	int64_t v[3];
	int i;

	if (load == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (readfile(path, buf, sizeof(buf), NULL, NULL, 0) == -1)
		return -1;
	for (i = 0, p = buf; i < 3; i++) {
		len = strcspn(p, " \t\n");
		if (pred_decimal_parse(p, len, 3, LOADAVG_MAX, &v[i]) == -1) {
			errno = EINVAL;
			return -1;
		}
		p += len;
		if (*p != ' ' && *p != '\t' && !(i == 2 && (*p == '\n' ||
		    *p == '\0'))) {
			errno = EINVAL;
			return -1;
		}
		while (*p == ' ' || *p == '\t')
			p++;
	}
	for (i = 0; i < 3; i++)
		load[i] = (double)v[i] / 1000.0;
	return 0;
}

/* "Key:   1234 kB" on line p; -1 if malformed. */
static int
meminfo_value(const char *p, int64_t *kb)
{
	size_t len;

	while (*p == ' ' || *p == '\t')
		p++;
	len = strspn(p, "0123456789");
	if (pred_decimal_parse(p, len, 0, MEMINFO_KB_MAX, kb) == -1)
		return -1;
	p += len;
	if (strncmp(p, " kB", 3) != 0)
		return -1;
	p += 3;
	return *p == '\n' || *p == '\0' ? 0 : -1;
}

int
sensors_read_meminfo(const char *path, double *mb)
{
	static const char *const keys[] = {
		"MemAvailable", "MemFree", "Buffers", "Cached"
	};
	char *buf;
	const char *p, *colon, *nl;
	size_t llen;
	int64_t val[4], kb;
	int have[4] = { 0, 0, 0, 0 }, i, saved;

	if (mb == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((buf = malloc(SENSORS_PROC_MAX)) == NULL)
		return -1;
	if (readfile(path, buf, SENSORS_PROC_MAX, NULL, NULL, 0) == -1) {
		saved = errno;
		free(buf);
		errno = saved;
		return -1;
	}
	for (p = buf; *p != '\0'; p = nl == NULL ? p + llen : nl + 1) {
		nl = strchr(p, '\n');
		llen = nl == NULL ? strlen(p) : (size_t)(nl - p);
		if ((colon = memchr(p, ':', llen)) == NULL)
			continue;
		for (i = 0; i < 4; i++) {
			if ((size_t)(colon - p) != strlen(keys[i]) ||
			    strncmp(p, keys[i], strlen(keys[i])) != 0)
				continue;
			if (have[i] || meminfo_value(colon + 1, &val[i]) == -1)
				goto bad;
			have[i] = 1;
		}
	}
	free(buf);
	if (have[0])
		kb = val[0];
	else if (have[1] && have[2] && have[3])
		kb = val[1] + val[2] + val[3];
	else {
		errno = ENOENT;
		return -1;
	}
	*mb = (double)kb / 1024.0;
	return 0;
bad:
	free(buf);
	errno = EINVAL;
	return -1;
}

/* Copies a fixed-width utmp field; non-printing bytes become '?'. */
static void
copy_field(char *dst, size_t dstsz, const char *src, size_t srcsz)
{
	size_t i, n;

	n = strnlen(src, srcsz);
	if (n > dstsz - 1)
		n = dstsz - 1;
	for (i = 0; i < n; i++)
		dst[i] = isprint((unsigned char)src[i]) ? src[i] : '?';
	dst[n] = '\0';
}

int
sensors_read_last_session(const char *path, double *when)
{
	struct utmpx ut;
	struct stat st;
	off_t at;
	size_t nrec;
	ssize_t r;
	int fd, saved;

	if (path == NULL || when == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	/* From the end, whole records: the newest that knew a session. */
	at = st.st_size - st.st_size % (off_t)sizeof(ut);
	for (nrec = 0; nrec < SENSORS_UTMP_RECORDS_MAX && at > 0; nrec++) {
		at -= (off_t)sizeof(ut);
		if ((r = pread(fd, &ut, sizeof(ut), at)) == -1 && errno == EINTR) {
			at += (off_t)sizeof(ut);
			continue;
		}
		if (r == -1)
			goto fail;
		if (r != (ssize_t)sizeof(ut))
			break;		/* shrunk meanwhile */
		if ((ut.ut_type == USER_PROCESS || ut.ut_type == DEAD_PROCESS) &&
		    ut.ut_tv.tv_sec > 0) {
			*when = (double)ut.ut_tv.tv_sec +
			    (double)ut.ut_tv.tv_usec / 1e6;
			close(fd);
			return 0;
		}
	}
	errno = ENOENT;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
sensors_read_utmp(const char *path, struct sensors_session *out, size_t max,
    size_t *np)
{
	struct utmpx ut;
	struct stat st;
	size_t n = 0, have, nrec;
	ssize_t r;
	int fd, saved;

	if (path == NULL || np == NULL || (out == NULL && max > 0)) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	for (nrec = 0; nrec < SENSORS_UTMP_RECORDS_MAX; nrec++) {
		for (have = 0; have < sizeof(ut); have += (size_t)r) {
			r = read(fd, (char *)&ut + have, sizeof(ut) - have);
			if (r == -1 && errno == EINTR) {
				r = 0;
				continue;
			}
			if (r == -1)
				goto fail;
			if (r == 0)
				break;
		}
		if (have < sizeof(ut))
			break;		/* end, or a partial record */
		if (ut.ut_type != USER_PROCESS || ut.ut_user[0] == '\0')
			continue;
		if (n == max) {
			errno = E2BIG;
			goto fail;
		}
		memset(&out[n], 0, sizeof(out[n]));
		copy_field(out[n].ss_user, sizeof(out[n].ss_user),
		    ut.ut_user, sizeof(ut.ut_user));
		copy_field(out[n].ss_line, sizeof(out[n].ss_line),
		    ut.ut_line, sizeof(ut.ut_line));
		out[n].ss_pid = ut.ut_pid;
		n++;
	}
	close(fd);
	*np = n;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* A tty name must stay inside devdir: no "..", no leading '/'. */
static int
safe_line(const char *line)
{
	const char *p;

	if (*line == '\0' || *line == '/' || strlen(line) > SENSORS_TTY_MAX)
		return 0;
	for (p = line; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("/_.:-", *p) == NULL)
			return 0;
	for (p = line; p != NULL; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return 0;
	}
	return 1;
}

int
sensors_tty_idle(const char *devdir, const char *line,
    const struct timespec *now, double *idle)
{
	char path[PATH_MAX];
	struct stat st;
	double d;

	if (devdir == NULL || line == NULL || now == NULL || idle == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (!safe_line(line)) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", devdir, line) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (stat(path, &st) == -1)
		return -1;
	d = (double)(now->tv_sec - st.st_atim.tv_sec) +
	    (double)(now->tv_nsec - st.st_atim.tv_nsec) / 1e9;
	*idle = d < 0 ? 0 : d;
	return 0;
}

int
sensors_users(struct pred_meas *m, const struct sensors_session *s,
    size_t n, const char *devdir, const struct timespec *now)
{
	struct pred_user users[PRED_MEAS_USERS_MAX];
	size_t nu = 0, i, j;
	double idle, input, least;

	if (m == NULL || (s == NULL && n > 0) || devdir == NULL ||
	    now == NULL) {
		errno = EINVAL;
		return -1;
	}
	input = m->pm_idle;
	least = input;
	for (i = 0; i < n; i++) {
		if (sensors_tty_idle(devdir, s[i].ss_line, now, &idle) == 0) {
			if (isnan(least) || idle < least)
				least = idle;
		} else
			idle = isnan(input) ? -1 : input;
		for (j = 0; j < nu; j++)
			if (strcmp(users[j].pu_name, s[i].ss_user) == 0)
				break;
		if (j == nu) {
			if (nu == PRED_MEAS_USERS_MAX) {
				errno = E2BIG;
				return -1;
			}
			memset(&users[nu], 0, sizeof(users[nu]));
			strlcpy(users[nu].pu_name, s[i].ss_user,
			    sizeof(users[nu].pu_name));
			users[nu].pu_idle = idle;
			nu++;
		} else if (idle >= 0 && (users[j].pu_idle < 0 ||
		    idle < users[j].pu_idle))
			users[j].pu_idle = idle;
	}
	memcpy(m->pm_user, users, nu * sizeof(users[0]));
	m->pm_nuser = nu;
	m->pm_nusers = n > INT_MAX ? INT_MAX : (int)n;
	m->pm_idle = least;
	return 0;
}
