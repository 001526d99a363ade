/*
 * lpad_spec — the spec a node manager hands CilkLaunchPad (a sealed
 * memory file as its standard input; an administrator's may be a file):
 * "key value" lines (format in lpad.h), parsed against a sorted key
 * table, every value checked.  A value is every byte up to the newline;
 * only argvx and envx, written for arguments and environment entries
 * that hold a newline (a shell script given to sh -c), are escaped.
 */
#include "lpad.h"
#include "errbuf.h"
#include "readfile.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC_NUM_MAX	20		/* digits of a number */
#define SPEC_AS_MB_MAX	(1ULL << 43)	/* bytes fit in 63 bits */
#define SPEC_NOFILE_MAX	(1ULL << 30)
#define SPEC_CPU_MAX	(1ULL << 40)

enum spec_key {
	SPEC_K_UNDEF = 0,
	SPEC_K_ALLOW_ROOT,
	SPEC_K_ARGV,
	SPEC_K_ARGVX,
	SPEC_K_CGROUP,
	SPEC_K_CWD,
	SPEC_K_ENV,
	SPEC_K_ENVX,
	SPEC_K_JOB,
	SPEC_K_LOG_GID,
	SPEC_K_NICE,
	SPEC_K_NODE,
	SPEC_K_RLIMIT_AS,
	SPEC_K_RLIMIT_CPU,
	SPEC_K_RLIMIT_NOFILE,
	SPEC_K_SCHED,
	SPEC_K_STAGE_IN,
	SPEC_K_STAGE_MAX,
	SPEC_K_STAGE_MAX_TASK,
	SPEC_K_STAGE_OUT,
	SPEC_K_STAGE_SPOOL,
	SPEC_K_STAGE_UID,
	SPEC_K_TASK,
	SPEC_K_TASKDIR,
	SPEC_K_USER,
	SPEC_K_WORKER,
	SPEC_K_MAX
};

struct spec_keyword {
	const char	*kw_name;
	enum spec_key	 kw_key;
	int		 kw_repeat;	/* may appear more than once */
};

/* Sorted by name: searched with bsearch. */
static const struct spec_keyword spec_keywords[] = {
	{ "allow_root",		SPEC_K_ALLOW_ROOT,	0 },
	{ "argv",		SPEC_K_ARGV,		1 },
	{ "argvx",		SPEC_K_ARGVX,		1 },
	{ "cgroup",		SPEC_K_CGROUP,		0 },
	{ "cwd",		SPEC_K_CWD,		0 },
	{ "env",		SPEC_K_ENV,		1 },
	{ "envx",		SPEC_K_ENVX,		1 },
	{ "job",		SPEC_K_JOB,		0 },
	{ "log_gid",		SPEC_K_LOG_GID,		0 },
	{ "nice",		SPEC_K_NICE,		0 },
	{ "node",		SPEC_K_NODE,		0 },
	{ "rlimit_as",		SPEC_K_RLIMIT_AS,	0 },
	{ "rlimit_cpu",		SPEC_K_RLIMIT_CPU,	0 },
	{ "rlimit_nofile",	SPEC_K_RLIMIT_NOFILE,	0 },
	{ "sched",		SPEC_K_SCHED,		0 },
	{ "stage_in",		SPEC_K_STAGE_IN,	1 },
	{ "stage_max",		SPEC_K_STAGE_MAX,	0 },
	{ "stage_max_task",	SPEC_K_STAGE_MAX_TASK,	0 },
	{ "stage_out",		SPEC_K_STAGE_OUT,	1 },
	{ "stage_spool",	SPEC_K_STAGE_SPOOL,	0 },
	{ "stage_uid",		SPEC_K_STAGE_UID,	0 },
	{ "task",		SPEC_K_TASK,		0 },
	{ "taskdir",		SPEC_K_TASKDIR,		0 },
	{ "user",		SPEC_K_USER,		0 },
	{ "worker",		SPEC_K_WORKER,		0 },
};

struct spec_buf {
	char		*sb_buf;
	size_t		 sb_len;
	size_t		 sb_cap;
	int		 sb_err;	/* errno of the first failure */
};

static int	spec_kw_cmp(const void *, const void *);
static int	spec_node_ok(const char *);
static int	spec_num(const char *, long long, long long, long long *);
static int	spec_value(struct lpad_spec *, enum spec_key, const char *,
		    char *, size_t);
static int	spec_add(char **, size_t *, const char *);
static void	spec_put(struct spec_buf *, const char *, const char *);
static void	spec_put_cb(void *, const char *, const char *);
static void	spec_putu(struct spec_buf *, const char *,
		    unsigned long long);

void
lpad_spec_init(struct lpad_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->ls_nice = 19;
	sp->ls_sched = LPAD_SCHED_NICE;
	sp->ls_log_gid = -1;
	sp->ls_stage_uid = -1;
}

void
lpad_spec_clear(struct lpad_spec *sp)
{
	size_t i;

	for (i = 0; i < sp->ls_argc; i++)
		free(sp->ls_argv[i]);
	for (i = 0; i < sp->ls_envc; i++)
		free(sp->ls_env[i]);
	lpad_spec_init(sp);
}

static int
spec_add(char **vec, size_t *n, const char *s)
{
	size_t len = strlen(s);

	if (*n == LPAD_ARGS_MAX || len > LPAD_ARG_MAX) {
		errno = E2BIG;
		return -1;
	}
	if ((vec[*n] = strdup(s)) == NULL)
		return -1;
	(*n)++;
	vec[*n] = NULL;
	return 0;
}

int
lpad_spec_add_arg(struct lpad_spec *sp, const char *s)
{
	return spec_add(sp->ls_argv, &sp->ls_argc, s);
}

int
lpad_spec_add_env(struct lpad_spec *sp, const char *s)
{
	return spec_add(sp->ls_env, &sp->ls_envc, s);
}

int
lpad_worker_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > LPAD_WORKER_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9'))
			continue;
		if (i > 0 && s[i] == '-')
			continue;
		return 0;
	}
	return 1;
}

/* The rule of msg_user_name_ok() and conf's user keys. */
int
lpad_user_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > LPAD_USER_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		if ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_')
			continue;
		if (i > 0 && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
		    s[i] == '-'))
			continue;
		return 0;
	}
	return 1;
}

/* A host name: [A-Za-z0-9._-], 1 to LPAD_NODE_MAX bytes. */
static int
spec_node_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > LPAD_NODE_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '.' || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

int
lpad_spec_check(const struct lpad_spec *sp, char *why, size_t whysz)
{
	size_t i, n;
	const char *eq;

	if (!lpad_worker_ok(sp->ls_worker)) {
		errbuf_set(why, whysz, "%s worker id \"%s\" (want "
		    "[a-z0-9][a-z0-9-]*, at most %d)",
		    sp->ls_worker[0] ? "invalid" : "no", sp->ls_worker,
		    LPAD_WORKER_MAX);
		return -1;
	}
	if (!lpad_user_ok(sp->ls_user)) {
		errbuf_set(why, whysz, "%s user name \"%s\"",
		    sp->ls_user[0] ? "invalid" : "no", sp->ls_user);
		return -1;
	}
	if (sp->ls_node[0] != '\0' && !spec_node_ok(sp->ls_node)) {
		errbuf_set(why, whysz, "invalid node name \"%s\"",
		    sp->ls_node);
		return -1;
	}
	n = strnlen(sp->ls_cwd, sizeof(sp->ls_cwd));
	if (n == 0 || n == sizeof(sp->ls_cwd) || sp->ls_cwd[0] != '/' ||
	    memchr(sp->ls_cwd, '\n', n) != NULL) {
		errbuf_set(why, whysz, "%s", n == 0 ? "no cwd" :
		    "cwd is not an absolute path of at most 1023 bytes");
		return -1;
	}
	n = strnlen(sp->ls_cgroup, sizeof(sp->ls_cgroup));
	if (n == sizeof(sp->ls_cgroup) || (n > 0 && (sp->ls_cgroup[0] !=
	    '/' || memchr(sp->ls_cgroup, '\n', n) != NULL))) {
		errbuf_set(why, whysz, "cgroup is not an absolute path of "
		    "at most 1023 bytes");
		return -1;
	}
	if (sp->ls_log_gid < -1 || sp->ls_log_gid > (long long)UINT32_MAX - 1) {
		errbuf_set(why, whysz, "log_gid out of range");
		return -1;
	}
	if (sp->ls_nice < -20 || sp->ls_nice > 19) {
		errbuf_set(why, whysz, "nice %d is not from -20 to 19",
		    sp->ls_nice);
		return -1;
	}
	if (sp->ls_sched <= LPAD_SCHED_UNDEF ||
	    sp->ls_sched >= LPAD_SCHED_MAX) {
		errbuf_set(why, whysz, "invalid scheduling policy");
		return -1;
	}
	if (sp->ls_rlim_cpu > SPEC_CPU_MAX || sp->ls_rlim_as > SPEC_AS_MB_MAX ||
	    sp->ls_rlim_nofile > SPEC_NOFILE_MAX) {
		errbuf_set(why, whysz, "resource limit out of range");
		return -1;
	}
	if (sp->ls_allow_root != 0 && sp->ls_allow_root != 1) {
		errbuf_set(why, whysz, "allow_root is not 0 or 1");
		return -1;
	}
	if (lpad_spec_check_stage(sp, why, whysz) == -1)
		return -1;
	if (sp->ls_argc == 0 || sp->ls_argv[0] == NULL ||
	    sp->ls_argv[0][0] == '\0') {
		errbuf_set(why, whysz, "no argv (or an empty argv[0])");
		return -1;
	}
	if (sp->ls_argc > LPAD_ARGS_MAX || sp->ls_envc > LPAD_ARGS_MAX) {
		errbuf_set(why, whysz, "more than %d argv or env entries",
		    LPAD_ARGS_MAX);
		return -1;
	}
	for (i = 0; i < sp->ls_argc; i++) {
		n = strlen(sp->ls_argv[i]);
		if (n > LPAD_ARG_MAX) {
			errbuf_set(why, whysz, "argv[%zu] is longer than %d "
			    "bytes", i, LPAD_ARG_MAX);
			return -1;
		}
	}
	for (i = 0; i < sp->ls_envc; i++) {
		n = strlen(sp->ls_env[i]);
		eq = strchr(sp->ls_env[i], '=');
		if (n > LPAD_ARG_MAX || eq == NULL || eq == sp->ls_env[i]) {
			errbuf_set(why, whysz, "env[%zu] is not NAME=VALUE "
			    "of at most %d bytes", i, LPAD_ARG_MAX);
			return -1;
		}
	}
	return 0;
}

static void
spec_put(struct spec_buf *sb, const char *key, const char *val)
{
	size_t need, cap;
	char *p;

	if (sb->sb_err)
		return;
	need = strlen(key) + 1 + strlen(val) + 1;
	if (sb->sb_len + need > LPAD_SPEC_MAX) {
		sb->sb_err = E2BIG;
		return;
	}
	/* snprintf() needs room for its NUL too, or it cuts the newline */
	if (sb->sb_len + need + 1 > sb->sb_cap) {
		cap = sb->sb_cap ? sb->sb_cap : 1024;
		while (cap < sb->sb_len + need + 1)
			cap *= 2;
		if ((p = realloc(sb->sb_buf, cap)) == NULL) {
			sb->sb_err = ENOMEM;
			return;
		}
		sb->sb_buf = p;
		sb->sb_cap = cap;
	}
	sb->sb_len += (size_t)snprintf(sb->sb_buf + sb->sb_len,
	    sb->sb_cap - sb->sb_len, "%s%s%s\n", key, *key ? " " : "", val);
}

/*
 * key for a value without a newline, else keyx with "\n" for newline
 * and "\\" for backslash.
 */
static void
spec_put_text(struct spec_buf *sb, const char *key, const char *val)
{
	char esc[2 * LPAD_ARG_MAX + 1], keyx[16];
	size_t i, o = 0;

	if (strchr(val, '\n') == NULL) {
		spec_put(sb, key, val);
		return;
	}
	for (i = 0; val[i] != '\0' && o + 2 < sizeof(esc); i++) {
		if (val[i] == '\n' || val[i] == '\\') {
			esc[o++] = '\\';
			esc[o++] = val[i] == '\n' ? 'n' : '\\';
		} else
			esc[o++] = val[i];
	}
	esc[o] = '\0';
	snprintf(keyx, sizeof(keyx), "%sx", key);
	spec_put(sb, keyx, esc);
}

/* Undoes spec_put_text()'s escaping; -1 on any other backslash. */
static int
spec_unescape(const char *v, char *out, size_t outsz)
{
	size_t o = 0;

	for (; *v != '\0'; v++) {
		if (o + 1 >= outsz)
			return -1;
		if (*v != '\\') {
			out[o++] = *v;
			continue;
		}
		v++;
		if (*v == 'n')
			out[o++] = '\n';
		else if (*v == '\\')
			out[o++] = '\\';
		else
			return -1;
	}
	out[o] = '\0';
	return 0;
}

static void
spec_putu(struct spec_buf *sb, const char *key, unsigned long long v)
{
	char num[SPEC_NUM_MAX + 4];

	snprintf(num, sizeof(num), "%llu", v);
	spec_put(sb, key, num);
}

char *
lpad_spec_encode(const struct lpad_spec *sp, size_t *lenp)
{
	struct spec_buf sb;
	char num[SPEC_NUM_MAX + 4];
	size_t i;

	if (lpad_spec_check(sp, NULL, 0) == -1) {
		errno = EINVAL;
		return NULL;
	}
	memset(&sb, 0, sizeof(sb));
	spec_put(&sb, "", LPAD_SPEC_MAGIC);
	spec_put(&sb, "worker", sp->ls_worker);
	spec_putu(&sb, "job", sp->ls_job);
	spec_putu(&sb, "task", sp->ls_task);
	if (sp->ls_node[0] != '\0')
		spec_put(&sb, "node", sp->ls_node);
	spec_put(&sb, "user", sp->ls_user);
	spec_put(&sb, "cwd", sp->ls_cwd);
	snprintf(num, sizeof(num), "%d", sp->ls_nice);
	spec_put(&sb, "nice", num);
	spec_put(&sb, "sched", sp->ls_sched == LPAD_SCHED_IDLE ? "idle" :
	    "nice");
	spec_putu(&sb, "rlimit_cpu", sp->ls_rlim_cpu);
	spec_putu(&sb, "rlimit_as", sp->ls_rlim_as);
	spec_putu(&sb, "rlimit_nofile", sp->ls_rlim_nofile);
	spec_putu(&sb, "allow_root", (unsigned long long)sp->ls_allow_root);
	if (sp->ls_cgroup[0] != '\0')
		spec_put(&sb, "cgroup", sp->ls_cgroup);
	if (sp->ls_log_gid >= 0)
		spec_putu(&sb, "log_gid", (unsigned long long)sp->ls_log_gid);
	lpad_spec_put_stage(sp, spec_put_cb, &sb);
	for (i = 0; i < sp->ls_envc; i++)
		spec_put_text(&sb, "env", sp->ls_env[i]);
	for (i = 0; i < sp->ls_argc; i++)
		spec_put_text(&sb, "argv", sp->ls_argv[i]);
	spec_put(&sb, "", "end");
	if (sb.sb_err) {
		free(sb.sb_buf);
		errno = sb.sb_err;
		return NULL;
	}
	*lenp = sb.sb_len;
	return sb.sb_buf;
}

static void
spec_put_cb(void *arg, const char *key, const char *val)
{
	spec_put(arg, key, val);
}

static int
spec_kw_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct spec_keyword *)elem)->kw_name);
}

/* A decimal number, optional '-', nothing else, from min to max. */
static int
spec_num(const char *s, long long min, long long max, long long *out)
{
	const char *p = s, *errstr;

	if (*p == '-')
		p++;
	if (*p == '\0' || strlen(p) > SPEC_NUM_MAX)
		return -1;
	for (; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return -1;
	*out = strtonum(s, min, max, &errstr);
	return errstr == NULL ? 0 : -1;
}

/* Sets one key from its NUL-terminated value. */
static int
spec_value(struct lpad_spec *sp, enum spec_key key, const char *v,
    char *why, size_t whysz)
{
	char raw[LPAD_ARG_MAX + 2];
	long long n;

	if (key == SPEC_K_ARGVX || key == SPEC_K_ENVX) {
		if (spec_unescape(v, raw, sizeof(raw)) == -1)
			goto bad;
		v = raw;
		key = key == SPEC_K_ARGVX ? SPEC_K_ARGV : SPEC_K_ENV;
	}
	switch (key) {
	case SPEC_K_WORKER:
		if (!lpad_worker_ok(v))
			goto bad;
		strlcpy(sp->ls_worker, v, sizeof(sp->ls_worker));
		return 0;
	case SPEC_K_USER:
		if (!lpad_user_ok(v))
			goto bad;
		strlcpy(sp->ls_user, v, sizeof(sp->ls_user));
		return 0;
	case SPEC_K_NODE:
		if (!spec_node_ok(v))
			goto bad;
		strlcpy(sp->ls_node, v, sizeof(sp->ls_node));
		return 0;
	case SPEC_K_CGROUP:
		if (v[0] != '/' || strlen(v) >= sizeof(sp->ls_cgroup))
			goto bad;
		strlcpy(sp->ls_cgroup, v, sizeof(sp->ls_cgroup));
		return 0;
	case SPEC_K_LOG_GID:
		if (spec_num(v, 0, (long long)UINT32_MAX - 1, &n) == -1)
			goto bad;
		sp->ls_log_gid = n;
		return 0;
	case SPEC_K_CWD:
		if (v[0] != '/' || strlen(v) >= sizeof(sp->ls_cwd))
			goto bad;
		strlcpy(sp->ls_cwd, v, sizeof(sp->ls_cwd));
		return 0;
	case SPEC_K_JOB:
	case SPEC_K_TASK:
		if (spec_num(v, 0, UINT32_MAX, &n) == -1)
			goto bad;
		if (key == SPEC_K_JOB)
			sp->ls_job = (uint32_t)n;
		else
			sp->ls_task = (uint32_t)n;
		return 0;
	case SPEC_K_NICE:
		if (spec_num(v, -20, 19, &n) == -1)
			goto bad;
		sp->ls_nice = (int)n;
		return 0;
	case SPEC_K_SCHED:
		if (strcmp(v, "idle") == 0)
			sp->ls_sched = LPAD_SCHED_IDLE;
		else if (strcmp(v, "nice") == 0)
			sp->ls_sched = LPAD_SCHED_NICE;
		else
			goto bad;
		return 0;
	case SPEC_K_RLIMIT_CPU:
		if (spec_num(v, 0, SPEC_CPU_MAX, &n) == -1)
			goto bad;
		sp->ls_rlim_cpu = (uint64_t)n;
		return 0;
	case SPEC_K_RLIMIT_AS:
		if (spec_num(v, 0, SPEC_AS_MB_MAX, &n) == -1)
			goto bad;
		sp->ls_rlim_as = (uint64_t)n;
		return 0;
	case SPEC_K_RLIMIT_NOFILE:
		if (spec_num(v, 0, SPEC_NOFILE_MAX, &n) == -1)
			goto bad;
		sp->ls_rlim_nofile = (uint64_t)n;
		return 0;
	case SPEC_K_ALLOW_ROOT:
		if (spec_num(v, 0, 1, &n) == -1 || v[0] == '-')
			goto bad;
		sp->ls_allow_root = (int)n;
		return 0;
	case SPEC_K_ARGV:
		if (lpad_spec_add_arg(sp, v) == -1) {
			errbuf_set(why, whysz, "more than %d argv entries",
			    LPAD_ARGS_MAX);
			return -1;
		}
		return 0;
	case SPEC_K_ENV:
		if (v[0] == '=' || strchr(v, '=') == NULL)
			goto bad;
		if (lpad_spec_add_env(sp, v) == -1) {
			errbuf_set(why, whysz, "more than %d env entries",
			    LPAD_ARGS_MAX);
			return -1;
		}
		return 0;
	case SPEC_K_STAGE_IN:
	case SPEC_K_STAGE_MAX:
	case SPEC_K_STAGE_MAX_TASK:
	case SPEC_K_STAGE_OUT:
	case SPEC_K_STAGE_SPOOL:
	case SPEC_K_STAGE_UID:
	case SPEC_K_TASKDIR:
		if (lpad_spec_stage_value(sp, key == SPEC_K_STAGE_IN ?
		    "stage_in" : key == SPEC_K_STAGE_MAX ? "stage_max" :
		    key == SPEC_K_STAGE_MAX_TASK ? "stage_max_task" :
		    key == SPEC_K_STAGE_OUT ? "stage_out" :
		    key == SPEC_K_STAGE_SPOOL ? "stage_spool" :
		    key == SPEC_K_STAGE_UID ? "stage_uid" : "taskdir", v) == 0)
			return 0;
		break;
	default:
		break;
	}
 bad:
	errbuf_set(why, whysz, "bad value \"%.64s\"", v);
	return -1;
}

int
lpad_spec_parse(struct lpad_spec *sp, const char *buf, size_t len,
    char *why, size_t whysz)
{
	const struct spec_keyword *kw;
	const char *p = buf, *end = buf + len, *nl, *sep;
	char key[32], sub[256], value[2 * LPAD_ARG_MAX + 1];
	size_t llen, klen, vlen, vmax, lineno = 0;
	uint32_t seen = 0;
	int got_end = 0;

	if (len > LPAD_SPEC_MAX) {
		errbuf_set(why, whysz, "spec of %zu bytes, over %d", len,
		    LPAD_SPEC_MAX);
		goto fail;
	}
	if (len == 0) {
		errbuf_set(why, whysz, "empty spec");
		goto fail;
	}
	while (p < end) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			errbuf_set(why, whysz, "line %zu: no newline at the "
			    "end (truncated?)", lineno);
			goto fail;
		}
		llen = (size_t)(nl - p);
		if (memchr(p, '\0', llen) != NULL) {
			errbuf_set(why, whysz, "line %zu: NUL byte", lineno);
			goto fail;
		}
		if (got_end) {
			errbuf_set(why, whysz, "line %zu: text after \"end\"",
			    lineno);
			goto fail;
		}
		if (lineno == 1) {
			if (llen != strlen(LPAD_SPEC_MAGIC) ||
			    memcmp(p, LPAD_SPEC_MAGIC, llen) != 0) {
				errbuf_set(why, whysz, "line 1: not \"%s\"",
				    LPAD_SPEC_MAGIC);
				goto fail;
			}
			p = nl + 1;
			continue;
		}
		if (llen == 0 || p[0] == '#') {
			p = nl + 1;
			continue;
		}
		if (llen == 3 && memcmp(p, "end", 3) == 0) {
			got_end = 1;
			p = nl + 1;
			continue;
		}
		if ((sep = memchr(p, ' ', llen)) == NULL) {
			errbuf_set(why, whysz, "line %zu: want \"key value\"",
			    lineno);
			goto fail;
		}
		klen = (size_t)(sep - p);
		vlen = llen - klen - 1;
		if (klen >= sizeof(key))
			klen = sizeof(key) - 1;	/* unknown anyway */
		memcpy(key, p, klen);
		key[klen] = '\0';
		kw = bsearch(key, spec_keywords, sizeof(spec_keywords) /
		    sizeof(spec_keywords[0]), sizeof(spec_keywords[0]),
		    spec_kw_cmp);
		if (kw == NULL) {
			errbuf_set(why, whysz, "line %zu: unknown key \"%s\"",
			    lineno, key);
			goto fail;
		}
		if (!kw->kw_repeat && (seen & (1U << kw->kw_key))) {
			errbuf_set(why, whysz, "line %zu: %s given twice",
			    lineno, key);
			goto fail;
		}
		seen |= 1U << kw->kw_key;
		/*
		 * An escaped value may take twice its bytes on the line; the
		 * limit is on what it stands for, as at the job manager.
		 */
		vmax = kw->kw_key == SPEC_K_ARGVX || kw->kw_key == SPEC_K_ENVX ?
		    2 * LPAD_ARG_MAX : LPAD_ARG_MAX;
		if (vlen > vmax) {
			errbuf_set(why, whysz, "line %zu: %s value over %zu "
			    "bytes", lineno, key, vmax);
			goto fail;
		}
		memcpy(value, sep + 1, vlen);
		value[vlen] = '\0';
		if (spec_value(sp, kw->kw_key, value, sub, sizeof(sub)) ==
		    -1) {
			errbuf_set(why, whysz, "line %zu: %s: %s", lineno,
			    key, sub);
			goto fail;
		}
		p = nl + 1;
	}
	if (!got_end) {
		errbuf_set(why, whysz, "no \"end\" line (truncated?)");
		goto fail;
	}
	if (lpad_spec_check(sp, sub, sizeof(sub)) == -1) {
		errbuf_set(why, whysz, "%s", sub);
		goto fail;
	}
	return 0;

 fail:
	lpad_spec_clear(sp);
	errno = EINVAL;
	return -1;
}

int
lpad_spec_read(struct lpad_spec *sp, const char *path, char *why,
    size_t whysz)
{
	char *buf;
	size_t len;
	int rc = -1, saved_errno;

	if ((buf = malloc(LPAD_SPEC_MAX + 1)) == NULL) {
		errbuf_set(why, whysz, "out of memory");
		return -1;
	}
	if (readfile(path, buf, LPAD_SPEC_MAX + 1, &len, NULL,
	    READFILE_NOFOLLOW | READFILE_PRIVATE) == -1) {
		if (errno == EINVAL)
			errbuf_set(why, whysz, "%s: not a regular file", path);
		else if (errno == EPERM)
			errbuf_set(why, whysz, "%s: writable by group or "
			    "others", path);
		else if (errno == EFBIG)
			errbuf_set(why, whysz, "%s: over %d bytes", path,
			    LPAD_SPEC_MAX);
		else
			errbuf_set(why, whysz, "%s: %s", path,
			    strerror(errno));
		if (errno == EPERM)
			errno = EINVAL;
	} else
		rc = lpad_spec_parse(sp, buf, len, why, whysz);
	saved_errno = errno;
	free(buf);
	errno = saved_errno;
	return rc;
}

/*
 * From a descriptor rather than a path: how the node manager hands a
 * launch pad its spec (a sealed memory file as its standard input), so
 * that no spec is ever on disk for the time the launch pad takes to
 * start.
 */
int
lpad_spec_read_fd(struct lpad_spec *sp, int fd, char *why, size_t whysz)
{
	char *buf;
	size_t len = 0;
	ssize_t n;
	int rc = -1, saved_errno;

	if ((buf = malloc(LPAD_SPEC_MAX + 1)) == NULL) {
		errbuf_set(why, whysz, "out of memory");
		return -1;
	}
	for (;;) {
		n = read(fd, buf + len, LPAD_SPEC_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len > LPAD_SPEC_MAX)
			break;
	}
	if (n == -1)
		errbuf_set(why, whysz, "reading the spec: %s",
		    strerror(errno));
	else if (len > LPAD_SPEC_MAX) {
		errbuf_set(why, whysz, "the spec is over %d bytes",
		    LPAD_SPEC_MAX);
		errno = EFBIG;
	} else
		rc = lpad_spec_parse(sp, buf, len, why, whysz);
	saved_errno = errno;
	free(buf);
	errno = saved_errno;
	return rc;
}

int
lpad_spec_memfd(const struct lpad_spec *sp)
{
	char *text;
	size_t len, off = 0;
	ssize_t n;
	int fd, saved_errno;

	if ((text = lpad_spec_encode(sp, &len)) == NULL)
		return -1;
	if ((fd = memfd_create("cilknow-lpad-spec",
	    MFD_CLOEXEC | MFD_ALLOW_SEALING)) == -1)
		goto fail;
	while (off < len) {
		n = write(fd, text + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		off += (size_t)n;
	}
	/* What the launch pad reads is what we wrote, whoever else has it. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK |
	    F_SEAL_GROW | F_SEAL_WRITE) == -1 ||
	    lseek(fd, 0, SEEK_SET) == -1)
		goto fail;
	free(text);
	return fd;

 fail:
	saved_errno = errno;
	if (fd != -1)
		close(fd);
	free(text);
	errno = saved_errno;
	return -1;
}
