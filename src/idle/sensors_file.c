/*
 * sensors_file — the "sensors = file:PATH" hook: measurements written by
 * a test or demo instead of read from the system.
 */
#include "sensors.h"
#include "readfile.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SF_IDLE_SCALE	3			/* decimals of seconds */
#define SF_IDLE_MAX	(315360000LL * 1000)	/* ten years */
#define SF_MEM_MAX	1000000000LL		/* MB */
#define SF_USERS_MAX	1000000LL

enum sf_key {
	SF_IDLETIME = 0,
	SF_LOADAVG,
	SF_LOGGEDIN,
	SF_MEM,
	SF_TIME,
	SF_USERS,
	SF_MAX
};

/* Sorted by name (searched with bsearch) and in enum sf_key order. */
static const struct sf_kw {
	const char	*kw_name;
	enum sf_key	 kw_key;
} sf_kws[] = {
	{ "idletime",	SF_IDLETIME },
	{ "load",	SF_LOADAVG },
	{ "loggedin",	SF_LOGGEDIN },
	{ "mem",	SF_MEM },
	{ "time",	SF_TIME },
	{ "users",	SF_USERS },
};

static void	seterr(char *, size_t, const char *, int, const char *, ...)
		    __attribute__((format(printf, 5, 6)));

static void
seterr(char *err, size_t errlen, const char *name, int line,
    const char *fmt, ...)
{
	va_list ap;
	int n;

	if (err == NULL || errlen == 0)
		return;
	n = snprintf(err, errlen, "%s:%d: ", name, line);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static int
wlen(size_t len)
{
	return len > 64 ? 64 : (int)len;
}

void
sensors_meas_init(struct pred_meas *m)
{
	memset(m, 0, sizeof(*m));
	m->pm_idle = SENSORS_IDLE_UNATTENDED;
	m->pm_nusers = 0;
	m->pm_mem = -1;
	m->pm_tod = -1;
}

int
sensors_tod(time_t t, int *minutes)
{
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		return -1;
	*minutes = tm.tm_hour * 60 + tm.tm_min;
	return 0;
}

static int
sf_kw_cmp(const void *key, const void *elem)
{
	const struct sf_kw *kw = elem;

	return strcmp(key, kw->kw_name);
}

static int
valid_user(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > PRED_USER_MAX || s[0] == '-' || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

/* "u1,u2:30,u3" into m->pm_user; idle < 0 means "use idletime". */
static int
parse_loggedin(const char *v, struct pred_meas *m, const char *name,
    int line, char *err, size_t errlen)
{
	const char *p = v, *colon;
	size_t len, ulen, i;
	int64_t idle;
	double d;

	m->pm_nuser = 0;
	if (*v == '\0')
		return 0;
	for (;;) {
		len = strcspn(p, ",");
		colon = memchr(p, ':', len);
		ulen = colon != NULL ? (size_t)(colon - p) : len;
		if (!valid_user(p, ulen)) {
			seterr(err, errlen, name, line, "bad user name '%.*s' "
			    "in loggedin", wlen(len), p);
			return -1;
		}
		d = -1;
		if (colon != NULL) {
			if (pred_decimal_parse(colon + 1, len - ulen - 1,
			    SF_IDLE_SCALE, SF_IDLE_MAX, &idle) == -1) {
				seterr(err, errlen, name, line, "bad idle time "
				    "'%.*s' in loggedin", wlen(len), p);
				return -1;
			}
			d = (double)idle / 1000.0;
		}
		for (i = 0; i < m->pm_nuser; i++)
			if (strlen(m->pm_user[i].pu_name) == ulen &&
			    memcmp(m->pm_user[i].pu_name, p, ulen) == 0)
				break;
		if (i == m->pm_nuser) {
			if (m->pm_nuser == PRED_MEAS_USERS_MAX) {
				seterr(err, errlen, name, line, "more than %d "
				    "users in loggedin", PRED_MEAS_USERS_MAX);
				return -1;
			}
			memcpy(m->pm_user[i].pu_name, p, ulen);
			m->pm_user[i].pu_name[ulen] = '\0';
			m->pm_user[i].pu_idle = d;
			m->pm_nuser++;
		} else if (d >= 0 && (m->pm_user[i].pu_idle < 0 ||
		    d < m->pm_user[i].pu_idle))
			m->pm_user[i].pu_idle = d;	/* two sessions */
		p += len;
		if (*p == '\0')
			return 0;
		p++;
		if (*p == '\0') {
			seterr(err, errlen, name, line, "empty user name at "
			    "end of loggedin");
			return -1;
		}
	}
}

static int
parse_value(enum sf_key key, const char *v, struct pred_meas *m,
    const char *name, int line, char *err, size_t errlen)
{
	const char *p;
	int64_t x;
	size_t len;
	int i, h, mi;

	switch (key) {
	case SF_IDLETIME:
		if (pred_decimal_parse(v, strlen(v), SF_IDLE_SCALE,
		    SF_IDLE_MAX, &x) == -1)
			break;
		m->pm_idle = (double)x / 1000.0;
		return 0;
	case SF_USERS:
		if (pred_decimal_parse(v, strlen(v), 0, SF_USERS_MAX,
		    &x) == -1)
			break;
		m->pm_nusers = (int)x;
		return 0;
	case SF_MEM:
		if (pred_decimal_parse(v, strlen(v), 0, SF_MEM_MAX, &x) == -1)
			break;
		m->pm_mem = (double)x;
		return 0;
	case SF_LOADAVG:
		for (i = 0, p = v; i < 3; i++) {
			len = strcspn(p, ",");
			if (pred_decimal_parse(p, len, PRED_LOAD_SCALE,
			    PRED_LOAD_MAX, &x) == -1) {
				seterr(err, errlen, name, line, "bad number "
				    "'%.*s' in load", wlen(len), p);
				return -1;
			}
			m->pm_load[i] = (double)x / 1000.0;
			p += len;
			if (i < 2 && *p++ != ',') {
				seterr(err, errlen, name, line, "load needs "
				    "three numbers");
				return -1;
			}
		}
		if (*p != '\0')
			break;
		return 0;
	case SF_LOGGEDIN:
		return parse_loggedin(v, m, name, line, err, errlen);
	case SF_TIME:
		if (strlen(v) != 5 || !isdigit((unsigned char)v[0]) ||
		    !isdigit((unsigned char)v[1]) || v[2] != ':' ||
		    !isdigit((unsigned char)v[3]) ||
		    !isdigit((unsigned char)v[4]))
			break;
		h = (v[0] - '0') * 10 + (v[1] - '0');
		mi = (v[3] - '0') * 10 + (v[4] - '0');
		if (h > 23 || mi > 59)
			break;
		m->pm_tod = h * 60 + mi;
		return 0;
	default:
		break;
	}
	seterr(err, errlen, name, line, "bad value '%.*s' for %s",
	    wlen(strlen(v)), v, sf_kws[key].kw_name);
	return -1;
}

int
sensors_file_parse(const char *buf, size_t len, const char *name,
    struct pred_meas *out, char *err, size_t errlen)
{
	struct pred_meas m;
	const struct sf_kw *kw;
	char line[SENSORS_LINE_MAX], *s, *eq, *end;
	const char *p, *nl;
	size_t llen, i;
	int lineno = 0, seen[SF_MAX];

	if (buf == NULL || out == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (name == NULL)
		name = "sensors";
	if (len > SENSORS_FILE_MAX) {
		seterr(err, errlen, name, 0, "file too large (at most %d "
		    "bytes)", SENSORS_FILE_MAX);
		errno = EFBIG;
		return -1;
	}
	sensors_meas_init(&m);
	memset(seen, 0, sizeof(seen));
	for (p = buf; p < buf + len; p = nl + 1) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(buf + len - p))) == NULL)
			nl = buf + len;
		llen = (size_t)(nl - p);
		if (llen >= sizeof(line)) {
			seterr(err, errlen, name, lineno, "line too long");
			goto bad;
		}
		if (memchr(p, '\0', llen) != NULL) {
			seterr(err, errlen, name, lineno, "NUL byte");
			goto bad;
		}
		memcpy(line, p, llen);
		line[llen] = '\0';
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		end = s + strlen(s);
		while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
		    end[-1] == '\r'))
			*--end = '\0';
		if (*s == '\0' || *s == '#')
			continue;
		if ((eq = strchr(s, '=')) == NULL) {
			seterr(err, errlen, name, lineno, "expected key=value, "
			    "not '%.*s'", wlen(strlen(s)), s);
			goto bad;
		}
		*eq = '\0';
		if ((kw = bsearch(s, sf_kws, SF_MAX, sizeof(sf_kws[0]),
		    sf_kw_cmp)) == NULL) {
			seterr(err, errlen, name, lineno, "unknown key '%.*s'",
			    wlen(strlen(s)), s);
			goto bad;
		}
		if (seen[kw->kw_key]++) {
			seterr(err, errlen, name, lineno, "duplicate key '%s'",
			    kw->kw_name);
			goto bad;
		}
		if (parse_value(kw->kw_key, eq + 1, &m, name, lineno, err,
		    errlen) == -1)
			goto bad;
	}
	if (!seen[SF_USERS])
		m.pm_nusers = (int)m.pm_nuser;
	for (i = 0; i < m.pm_nuser; i++)
		if (m.pm_user[i].pu_idle < 0)
			m.pm_user[i].pu_idle = m.pm_idle;
	*out = m;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int
sensors_file_read(const char *path, struct pred_meas *m, char *err,
    size_t errlen)
{
	char *buf;
	size_t len;
	int rc, saved;

	if (path == NULL || m == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((buf = malloc(SENSORS_FILE_MAX + 1)) == NULL)
		return -1;
	if (readfile(path, buf, SENSORS_FILE_MAX + 1, &len, NULL, 0) == -1) {
		saved = errno;
		seterr(err, errlen, path, 0, "%s", strerror(saved));
		free(buf);
		errno = saved;
		return -1;
	}
	rc = sensors_file_parse(buf, len, path, m, err, errlen);
	saved = errno;
	free(buf);
	errno = saved;
	return rc;
}
