/*
 * conf — cilknow.conf(5).
 *
 * Every key cilknow knows is one line of conf_keys[] below: its name, the
 * type its value is checked against, flags and the built-in default.  A
 * struct conf holds one string per key, in table order, always valid for
 * the key's type; conf_new() starts from the defaults (and checks the
 * table: sorted, every default valid, so a bad new line fails every test
 * at once).
 *
 * File syntax: "key = value" lines; blanks around the key, the '=' and
 * the value are ignored; blank lines and lines whose first non-blank is
 * '#' are comments, and so is the rest of a value from a '#' that starts
 * it or follows a blank ("quantum = 5 # seconds").  Values are literal
 * otherwise: no quoting, no escapes.  A key given twice keeps the later
 * value, as does a -o override applied after the file.
 */
#include "conf.h"
#include "errbuf.h"

#include <sys/stat.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONF_LINE_MAX		4096	/* longest line read from a file */
#define CONF_REASON_MAX		256
#define CONF_SECONDS_MAX	86400.0
#define CONF_USER_MAX		32	/* longest user name */
#define CONF_HOST_MAX		253	/* longest DNS name */
#define CONF_SLOTS_MAX		256	/* NC_SLOTS_MAX */

enum conf_type {
	CONF_T_UNDEF = 0,
	CONF_T_HOSTPORT,	/* HOST[:PORT], IPv6 as [ADDR][:PORT] */
	CONF_T_PATH,		/* non-empty, no newline; "~/" expanded */
	CONF_T_SECONDS,		/* decimal > 0, fractions, at most a day */
	CONF_T_SENSORS,		/* "system" or "file:PATH" */
	CONF_T_USER,		/* one user name */
	CONF_T_USERS,		/* comma-separated user names, may be empty */
	CONF_T_BOOL,		/* "yes" or "no" */
	CONF_T_POLICY,		/* "thesis" or "targeted" */
	CONF_T_COUNT,		/* whole number, 1 to CONF_COUNT_MAX */
	CONF_T_USERAUTH,	/* "user", "munge", or both, comma-separated */
	CONF_T_SLOTS,		/* "auto" or 1 to CONF_SLOTS_MAX */
	CONF_T_MAX
};

#define CONF_F_EMPTY	0x01	/* the empty value is allowed */

struct conf_key {
	const char	*ck_name;
	enum conf_type	 ck_type;
	int		 ck_flags;
	const char	*ck_default;
};

/*
 * Sorted by name (strcmp order): conf_lookup() uses bsearch(3).  Add a
 * key as one line in its place, then document it in cilknow.conf(5) and
 * conf/cilknow.conf.
 */
static const struct conf_key conf_keys[] = {
	{ "admins",		CONF_T_USERS,	0, "root" },
	{ "allow_root_jobs",	CONF_T_BOOL,	0, "no" },
	{ "allow_suspend",	CONF_T_BOOL,	0, "yes" },
	{ "broker",		CONF_T_HOSTPORT, 0, "localhost:7410" },
	{ "cgroup",		CONF_T_PATH,	0, "auto" },
	{ "cluster_key",	CONF_T_PATH,	0, "/etc/cilknow/cluster.key" },
	{ "cluster_pub",	CONF_T_PATH,	0, "/etc/cilknow/cluster.pub" },
	{ "down_keep",		CONF_T_SECONDS,	0, "86400" },
	{ "history_days",	CONF_T_COUNT,	0, "30" },
	{ "history_jobs",	CONF_T_COUNT,	0, "100000" },
	{ "input_devices",	CONF_T_PATH,	CONF_F_EMPTY, "" },
	{ "jobs_max",		CONF_T_COUNT,	0, "10000" },
	{ "listen",		CONF_T_HOSTPORT, CONF_F_EMPTY, "" },
	{ "logind",		CONF_T_PATH,	0, "system" },
	{ "munge_socket",	CONF_T_PATH,	0, "/run/munge/munge.socket.2" },
	{ "node_fault_limit",	CONF_T_COUNT,	0, "3" },	/* nodedown.h */
	{ "nodes_max",		CONF_T_COUNT,	0, "100000" },
	{ "owners",		CONF_T_USERS,	0, "" },
	{ "policy",		CONF_T_POLICY,	0, "targeted" },
	{ "quantum",		CONF_T_SECONDS,	0, "5" },
	{ "register_interval",	CONF_T_SECONDS,	0, "60" },
	{ "replay_window",	CONF_T_SECONDS,	0, "30" },
	{ "root_restart_window", CONF_T_SECONDS, 0, "86400" },	/* pbind.c */
	{ "run_dir",		CONF_T_PATH,	0, "/run/cilknow" },
	{ "sensors",		CONF_T_SENSORS,	0, "system" },
	{ "service_user",	CONF_T_USER,	0, "cilknow" },
	{ "slots",		CONF_T_SLOTS,	0, "auto" },
	{ "slots_by_load",	CONF_T_BOOL,	0, "yes" },
	{ "spool_min_free",	CONF_T_PATH,	0, "1M" },	/* pcheck.c */
	{ "stage_max",		CONF_T_PATH,	0, "64M" },	/* stage.h */
	{ "stage_max_task",	CONF_T_PATH,	0, "256M" },
	{ "start_timeout",	CONF_T_SECONDS,	0, "300" },	/* nodeworker.h */
	{ "state_dir",		CONF_T_PATH,	0, "/var/lib/cilknow" },
	{ "stop_grace",		CONF_T_SECONDS,	0, "60" },
	{ "stop_grace_fast",	CONF_T_SECONDS,	0, "1" },	/* vacate.h */
	{ "suspend_max",	CONF_T_SECONDS,	0, "600" },
	{ "timeout",		CONF_T_SECONDS,	0, "3" },
	{ "user",		CONF_T_USER,	CONF_F_EMPTY, "" },
	{ "user_auth",		CONF_T_USERAUTH, 0, "user" },
	{ "user_jobs",		CONF_T_COUNT,	0, "64" },
	{ "user_key",		CONF_T_PATH,	0, "~/.cilknow/id" },
	{ "user_keys",		CONF_T_PATH,	0, "/etc/cilknow/users" },
	{ "user_register_rate",	CONF_T_COUNT,	0, "10" },	/* breg.h */
	{ "worker_cpu_idle",	CONF_T_BOOL,	0, "yes" },
	{ "worker_cpu_weight",	CONF_T_PATH,	0, "1" },
	{ "worker_io_weight",	CONF_T_PATH,	0, "1" },
	{ "worker_memory_high",	CONF_T_PATH,	0, "40%" },
	{ "worker_memory_max",	CONF_T_PATH,	0, "50%" },
	{ "worker_nice",	CONF_T_PATH,	0, "19" },	/* parent.c */
	{ "worker_pids_max",	CONF_T_PATH,	0, "4096" },
	{ "worker_sched_idle",	CONF_T_BOOL,	0, "yes" },
};

#define CONF_NKEYS	(sizeof(conf_keys) / sizeof(conf_keys[0]))

struct conf {
	char	*cf_val[CONF_NKEYS];	/* parallel to conf_keys[] */
};

static int	conf_key_cmp(const void *, const void *);
static const struct conf_key *conf_lookup(const char *);
static void	conf_file_err(FILE *, const char *, unsigned long,
		    const char *, ...)
		    __attribute__((format(printf, 4, 5)));
static int	conf_check(const struct conf_key *, const char *, char *,
		    char *, size_t);
static int	conf_check_hostport(const char *, char *, size_t);
static int	conf_check_path(const char *, char *, size_t);
static int	conf_parse_seconds(const char *, double *);
static int	conf_parse_count(const char *, unsigned *);
static int	conf_check_user(const char *, size_t, char *, size_t);
static int	conf_check_users(const char *, char *, char *, size_t);
static int	conf_parse_line(struct conf *, char *, char *, size_t);
static const char *conf_home(void);

static int
conf_key_cmp(const void *key, const void *elem)
{
	const struct conf_key *ck = elem;

	return strcmp(key, ck->ck_name);
}

static const struct conf_key *
conf_lookup(const char *key)
{
	return bsearch(key, conf_keys, CONF_NKEYS, sizeof(conf_keys[0]),
	    conf_key_cmp);
}

/* "path:line: msg" (or "path: msg" for line 0) to errs, if any. */
static void
conf_file_err(FILE *errs, const char *path, unsigned long lineno,
    const char *fmt, ...)
{
	va_list ap;

	if (errs == NULL)
		return;
	if (lineno > 0)
		fprintf(errs, "%s:%lu: ", path, lineno);
	else
		fprintf(errs, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(errs, fmt, ap);
	va_end(ap);
	fputc('\n', errs);
}

struct conf *
conf_new(void)
{
	struct conf *cf;
	char why[CONF_REASON_MAX];
	size_t i;

	if ((cf = calloc(1, sizeof(*cf))) == NULL)
		return NULL;
	for (i = 0; i < CONF_NKEYS; i++) {
		if ((i > 0 && strcmp(conf_keys[i - 1].ck_name,
		    conf_keys[i].ck_name) >= 0) ||
		    conf_set(cf, conf_keys[i].ck_name,
		    conf_keys[i].ck_default, why, sizeof(why)) == -1) {
			/* A broken table (unsorted, bad default) or ENOMEM. */
			if (errno != ENOMEM)
				errno = EINVAL;
			conf_free(cf);
			return NULL;
		}
	}
	return cf;
}

void
conf_free(struct conf *cf)
{
	size_t i;

	if (cf == NULL)
		return;
	for (i = 0; i < CONF_NKEYS; i++)
		free(cf->cf_val[i]);
	free(cf);
}

const char *
conf_default_path(void)
{
	const char *p;

	if ((p = secure_getenv("CILKNOW_CONF")) != NULL && *p != '\0')
		return p;
	return CONF_DEFAULT_PATH;
}

/* HOST[:PORT]; host a DNS name or IPv4 address, IPv6 in brackets. */
static int
conf_check_hostport(const char *val, char *why, size_t whysz)
{
	char addr[INET6_ADDRSTRLEN + 1];
	struct in6_addr in6;
	const char *host, *port, *p, *scope;
	const char *errstr;
	size_t hlen, alen;

	if (val[0] == '[') {
		if ((p = strchr(val, ']')) == NULL) {
			errbuf_set(why, whysz, "\"%.64s\": missing ']'", val);
			return -1;
		}
		host = val + 1;
		hlen = (size_t)(p - host);
		if (p[1] == ':')
			port = p + 2;
		else if (p[1] == '\0')
			port = NULL;
		else {
			errbuf_set(why, whysz,
			    "\"%.64s\": expected ':' after ']'", val);
			return -1;
		}
		/* An optional "%scope" follows the address. */
		scope = memchr(host, '%', hlen);
		alen = scope != NULL ? (size_t)(scope - host) : hlen;
		if (alen == 0 || alen >= sizeof(addr) ||
		    (scope != NULL && (hlen - alen < 2 ||
		    strspn(scope + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_.-") !=
		    hlen - alen - 1))) {
			errbuf_set(why, whysz,
			    "\"%.64s\": invalid IPv6 address", val);
			return -1;
		}
		memcpy(addr, host, alen);
		addr[alen] = '\0';
		if (inet_pton(AF_INET6, addr, &in6) != 1) {
			errbuf_set(why, whysz,
			    "\"%.64s\": invalid IPv6 address", val);
			return -1;
		}
	} else {
		p = strchr(val, ':');
		if (p != NULL && strchr(p + 1, ':') != NULL) {
			errbuf_set(why, whysz, "\"%.64s\": write an IPv6 "
			    "address in brackets, [ADDR]:PORT", val);
			return -1;
		}
		host = val;
		hlen = p != NULL ? (size_t)(p - val) : strlen(val);
		port = p != NULL ? p + 1 : NULL;
		if (hlen == 0) {
			errbuf_set(why, whysz, "\"%.64s\": missing host", val);
			return -1;
		}
		if (hlen > CONF_HOST_MAX) {
			errbuf_set(why, whysz, "host name too long");
			return -1;
		}
		if (strspn(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_.-") < hlen) {
			errbuf_set(why, whysz,
			    "\"%.64s\": invalid character in host", val);
			return -1;
		}
	}
	if (port != NULL) {
		if (*port == '\0' || strspn(port, "0123456789") !=
		    strlen(port)) {
			errbuf_set(why, whysz,
			    "\"%.64s\": port must be a number", val);
			return -1;
		}
		strtonum(port, 1, 65535, &errstr);
		if (errstr != NULL) {
			errbuf_set(why, whysz,
			    "\"%.64s\": port must be 1-65535", val);
			return -1;
		}
	}
	return 0;
}

static int
conf_check_path(const char *val, char *why, size_t whysz)
{
	if (*val == '\0') {
		errbuf_set(why, whysz, "empty path");
		return -1;
	}
	if (strchr(val, '\n') != NULL) {
		errbuf_set(why, whysz, "newline in path");
		return -1;
	}
	return 0;
}

/* Decimal seconds, > 0, at most a day; no sign, blank, hex, nan, inf. */
static int
conf_parse_seconds(const char *val, double *out)
{
	char *end;
	double d;

	if (!isdigit((unsigned char)val[0]) && val[0] != '.')
		return -1;
	if (strpbrk(val, "xX") != NULL)
		return -1;
	errno = 0;
	d = strtod(val, &end);
	if (end == val || *end != '\0' || errno == ERANGE || !isfinite(d) ||
	    d <= 0 || d > CONF_SECONDS_MAX)
		return -1;
	*out = d;
	return 0;
}

/* [a-z_][a-z0-9_.-]*, len bytes of name (not NUL-terminated). */
static int
conf_check_user(const char *name, size_t len, char *why, size_t whysz)
{
	size_t i;

	if (len == 0) {
		errbuf_set(why, whysz, "empty user name");
		return -1;
	}
	if (len > CONF_USER_MAX) {
		errbuf_set(why, whysz, "user name \"%.*s\" longer than %d",
		    (int)(len > 64 ? 64 : len), name, CONF_USER_MAX);
		return -1;
	}
	for (i = 0; i < len; i++) {
		if ((name[i] >= 'a' && name[i] <= 'z') || name[i] == '_')
			continue;
		if (i > 0 && ((name[i] >= '0' && name[i] <= '9') ||
		    name[i] == '.' || name[i] == '-'))
			continue;
		errbuf_set(why, whysz, "invalid user name \"%.*s\"",
		    (int)len, name);
		return -1;
	}
	return 0;
}

/*
 * Comma-separated user names, blanks around each allowed; written to
 * canon (CONF_VALUE_MAX bytes) as "a,b,c".  Empty is the empty list.
 */
static int
conf_check_users(const char *val, char *canon, char *why, size_t whysz)
{
	const char *p, *q, *e;
	size_t len;

	canon[0] = '\0';
	p = val + strspn(val, " \t");
	if (*p == '\0')
		return 0;
	for (;;) {
		q = p + strcspn(p, ",");
		e = q;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		len = (size_t)(e - p);
		if (conf_check_user(p, len, why, whysz) == -1)
			return -1;
		if (canon[0] != '\0')
			strlcat(canon, ",", CONF_VALUE_MAX);
		if (strlen(canon) + len >= CONF_VALUE_MAX) {
			errbuf_set(why, whysz, "list too long");
			return -1;
		}
		strncat(canon, p, len);
		if (*q == '\0')
			break;
		p = q + 1;
		p += strspn(p, " \t");
	}
	return 0;
}

/* Validates val for ck; the value to store goes to canon. */
static int
conf_check(const struct conf_key *ck, const char *val, char *canon,
    char *why, size_t whysz)
{
	unsigned n;
	double d;

	strlcpy(canon, val, CONF_VALUE_MAX);
	if (*val == '\0' && (ck->ck_flags & CONF_F_EMPTY))
		return 0;
	switch (ck->ck_type) {
	case CONF_T_HOSTPORT:
		if (*val == '\0') {
			errbuf_set(why, whysz, "empty address, expected "
			    "HOST[:PORT]");
			return -1;
		}
		return conf_check_hostport(val, why, whysz);
	case CONF_T_PATH:
		return conf_check_path(val, why, whysz);
	case CONF_T_SECONDS:
		if (conf_parse_seconds(val, &d) == -1) {
			errbuf_set(why, whysz, "\"%.64s\": expected seconds, "
			    "a decimal number > 0 and at most %.0f", val,
			    CONF_SECONDS_MAX);
			return -1;
		}
		return 0;
	case CONF_T_SENSORS:
		if (strcmp(val, "system") == 0)
			return 0;
		if (strncmp(val, "file:", 5) == 0 && val[5] != '\0' &&
		    strchr(val, '\n') == NULL)
			return 0;
		errbuf_set(why, whysz, "\"%.64s\": expected \"system\" or "
		    "\"file:PATH\"", val);
		return -1;
	case CONF_T_USER:
		return conf_check_user(val, strlen(val), why, whysz);
	case CONF_T_USERS:
		return conf_check_users(val, canon, why, whysz);
	case CONF_T_COUNT:
		if (conf_parse_count(val, &n) == -1) {
			errbuf_set(why, whysz, "\"%.64s\": expected a whole "
			    "number from 1 to %u", val, CONF_COUNT_MAX);
			return -1;
		}
		return 0;
	case CONF_T_SLOTS:
		if (strcmp(val, "auto") == 0 ||
		    (conf_parse_count(val, &n) == 0 && n <= CONF_SLOTS_MAX))
			return 0;
		errbuf_set(why, whysz, "\"%.64s\": expected auto or a whole "
		    "number from 1 to %u", val, CONF_SLOTS_MAX);
		return -1;
	case CONF_T_USERAUTH:
		if (strcmp(val, "user") == 0 || strcmp(val, "munge") == 0 ||
		    strcmp(val, "user,munge") == 0 ||
		    strcmp(val, "munge,user") == 0)
			return 0;
		errbuf_set(why, whysz, "'%s' is not user, munge, user,munge "
		    "or munge,user", val);
		return -1;
	case CONF_T_POLICY:
		if (strcmp(val, "thesis") == 0 || strcmp(val, "targeted") == 0)
			return 0;
		errbuf_set(why, whysz, "'%s' is neither thesis nor targeted",
		    val);
		return -1;
	case CONF_T_BOOL:
		if (strcmp(val, "yes") == 0 || strcmp(val, "no") == 0)
			return 0;
		errbuf_set(why, whysz, "'%s' is neither yes nor no", val);
		return -1;
	default:
		errbuf_set(why, whysz, "bad key type %d", ck->ck_type);
		return -1;
	}
}

int
conf_set(struct conf *cf, const char *key, const char *value, char *err,
    size_t errlen)
{
	const struct conf_key *ck;
	char canon[CONF_VALUE_MAX], why[CONF_REASON_MAX];
	char *copy;
	size_t i;

	if ((ck = conf_lookup(key)) == NULL) {
		errbuf_set(err, errlen, "unknown key \"%.64s\"", key);
		errno = EINVAL;
		return -1;
	}
	if (strlen(value) >= CONF_VALUE_MAX) {
		errbuf_set(err, errlen, "%s: value too long (at most %d "
		    "bytes)", ck->ck_name, CONF_VALUE_MAX - 1);
		errno = EINVAL;
		return -1;
	}
	if (conf_check(ck, value, canon, why, sizeof(why)) == -1) {
		errbuf_set(err, errlen, "%s: %s", ck->ck_name, why);
		errno = EINVAL;
		return -1;
	}
	if ((copy = strdup(canon)) == NULL) {
		errbuf_set(err, errlen, "%s: %s", ck->ck_name,
		    strerror(errno));
		return -1;
	}
	i = (size_t)(ck - conf_keys);
	free(cf->cf_val[i]);
	cf->cf_val[i] = copy;
	return 0;
}

int
conf_override(struct conf *cf, const char *kv, char *err, size_t errlen)
{
	char key[64], value[CONF_VALUE_MAX];
	const char *eq, *p, *e;
	size_t klen;

	if ((eq = strchr(kv, '=')) == NULL) {
		errbuf_set(err, errlen, "\"%.64s\": expected KEY=VALUE", kv);
		errno = EINVAL;
		return -1;
	}
	p = kv + strspn(kv, " \t");
	e = eq;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	klen = (size_t)(e - p);
	if (klen == 0 || klen >= sizeof(key)) {
		errbuf_set(err, errlen, "\"%.64s\": %s", kv, klen == 0 ?
		    "missing key before '='" : "unknown key");
		errno = EINVAL;
		return -1;
	}
	memcpy(key, p, klen);
	key[klen] = '\0';
	/* Blanks around the value are dropped, as in the file. */
	p = eq + 1 + strspn(eq + 1, " \t");
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if ((size_t)(e - p) >= CONF_VALUE_MAX) {
		errbuf_set(err, errlen, "%s: value too long (at most %d "
		    "bytes)", key, CONF_VALUE_MAX - 1);
		errno = EINVAL;
		return -1;
	}
	memcpy(value, p, (size_t)(e - p));
	value[e - p] = '\0';
	return conf_set(cf, key, value, err, errlen);
}

/* One line without its newline; comments and blank lines give 0. */
static int
conf_parse_line(struct conf *cf, char *line, char *why, size_t whysz)
{
	char *key, *eq, *e, *val, *p;

	key = line + strspn(line, " \t\r");
	if (*key == '\0' || *key == '#')
		return 0;
	if ((eq = strchr(key, '=')) == NULL) {
		errbuf_set(why, whysz, "missing '=' in \"%.64s\"", key);
		return -1;
	}
	for (e = eq; e > key && (e[-1] == ' ' || e[-1] == '\t'); e--)
		;
	if (e == key) {
		errbuf_set(why, whysz, "missing key before '='");
		return -1;
	}
	*e = '\0';
	val = eq + 1;
	val += strspn(val, " \t");
	/* A comment starts the value or follows a blank. */
	for (p = val; *p != '\0'; p++) {
		if (*p == '#' && (p == val || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
	}
	for (e = val + strlen(val); e > val && (e[-1] == ' ' ||
	    e[-1] == '\t' || e[-1] == '\r'); e--)
		;
	*e = '\0';
	return conf_set(cf, key, val, why, whysz);
}

int
conf_load_file(struct conf *cf, const char *path, int missing_ok,
    FILE *errs)
{
	char why[CONF_REASON_MAX];
	struct stat st;
	FILE *fp;
	char *line = NULL;
	size_t linecap = 0, len;
	ssize_t n;
	unsigned long lineno = 0;
	int fd, nerr = 0, saved_errno;

	/* O_NONBLOCK: a FIFO must not hang us; it is refused below. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK))
	    == -1) {
		if (missing_ok && errno == ENOENT)
			return 0;
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		saved_errno = errno;
		close(fd);
		errno = saved_errno;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		conf_file_err(errs, path, 0, "not a regular file");
		close(fd);
		return 1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		conf_file_err(errs, path, 0, "writable by group or others; "
		    "refusing it (chmod go-w)");
		close(fd);
		return 1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		conf_file_err(errs, path, 0, "owned by uid %lu, neither root "
		    "nor us; refusing it", (unsigned long)st.st_uid);
		close(fd);
		return 1;
	}
	if ((fp = fdopen(fd, "r")) == NULL) {
		saved_errno = errno;
		close(fd);
		errno = saved_errno;
		return -1;
	}

	while ((n = getline(&line, &linecap, fp)) != -1) {
		lineno++;
		len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != len) {
			conf_file_err(errs, path, lineno, "NUL byte in line");
			nerr++;
			continue;
		}
		if (len > CONF_LINE_MAX) {
			conf_file_err(errs, path, lineno, "line longer than "
			    "%d bytes", CONF_LINE_MAX);
			nerr++;
			continue;
		}
		if (conf_parse_line(cf, line, why, sizeof(why)) == -1) {
			conf_file_err(errs, path, lineno, "%s", why);
			nerr++;
		}
	}
	if (ferror(fp)) {
		conf_file_err(errs, path, lineno + 1, "read error: %s",
		    strerror(errno));
		nerr++;
	}
	free(line);
	fclose(fp);
	return nerr;
}

const char *
conf_get(const struct conf *cf, const char *key)
{
	const struct conf_key *ck;

	if ((ck = conf_lookup(key)) == NULL)
		return NULL;
	return cf->cf_val[ck - conf_keys];
}

/* Digits only, no sign, no leading zero: "1" to CONF_COUNT_MAX. */
static int
conf_parse_count(const char *s, unsigned *out)
{
	unsigned long v = 0;
	const char *p;

	if (*s < '1' || *s > '9' || strlen(s) > 7)
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > CONF_COUNT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int
conf_get_count(const struct conf *cf, const char *key, unsigned *out)
{
	const struct conf_key *ck;

	if ((ck = conf_lookup(key)) == NULL || ck->ck_type != CONF_T_COUNT ||
	    conf_parse_count(cf->cf_val[ck - conf_keys], out) == -1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
conf_get_seconds(const struct conf *cf, const char *key, double *out)
{
	const struct conf_key *ck;

	if ((ck = conf_lookup(key)) == NULL || ck->ck_type != CONF_T_SECONDS ||
	    conf_parse_seconds(cf->cf_val[ck - conf_keys], out) == -1) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* $HOME if absolute, else the password entry's directory, else NULL. */
static const char *
conf_home(void)
{
	const char *h;
	struct passwd *pw;

	if ((h = secure_getenv("HOME")) != NULL && h[0] == '/')
		return h;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir != NULL &&
	    pw->pw_dir[0] == '/')
		return pw->pw_dir;
	return NULL;
}

int
conf_get_path(const struct conf *cf, const char *key, char *buf,
    size_t bufsz)
{
	const struct conf_key *ck;
	const char *v, *home;
	size_t hlen;
	int n;

	if ((ck = conf_lookup(key)) == NULL || ck->ck_type != CONF_T_PATH) {
		errno = EINVAL;
		return -1;
	}
	v = cf->cf_val[ck - conf_keys];
	if (v[0] == '~' && (v[1] == '/' || v[1] == '\0')) {
		if ((home = conf_home()) == NULL) {
			errno = ENOENT;
			return -1;
		}
		hlen = strlen(home);
		while (hlen > 1 && home[hlen - 1] == '/')
			hlen--;
		if (hlen == 1 && v[1] == '/')
			hlen = 0;	/* home is "/": no "//" */
		if (hlen > INT_MAX)
			hlen = INT_MAX;
		n = snprintf(buf, bufsz, "%.*s%s", (int)hlen, home, v + 1);
		if (n < 0 || (size_t)n >= bufsz) {
			errno = ENAMETOOLONG;
			return -1;
		}
		return 0;
	}
	if (strlcpy(buf, v, bufsz) >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

const char *
conf_key_name(size_t i)
{
	return i < CONF_NKEYS ? conf_keys[i].ck_name : NULL;
}

void
conf_dump(const struct conf *cf, FILE *fp)
{
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++)
		fprintf(fp, "%s = %s\n", conf_keys[i].ck_name, cf->cf_val[i]);
}
