/*
 * pred_parse — the predicate language: numbers, conditions, scopes,
 * commands and their canonical text.  Every error message names the
 * offending word; nothing is stored unless the whole input parses.
 */
#include "pred.h"
#include "errbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cond_kw {
	const char	*ck_name;
	enum pred_ctype	 ck_type;
	int		 ck_nval;	/* numbers per threshold set */
	int		 ck_scale;	/* decimals */
	int64_t		 ck_max;
	int		 ck_atleast;	/* measured >= threshold passes */
};

/* Sorted by name: searched with bsearch. */
static const struct cond_kw cond_kws[] = {
	{ "hours",	PRED_C_HOURS,	 0, 0, 0,			0 },
	{ "idletime",	PRED_C_IDLETIME, 1, 0, PRED_IDLETIME_MAX,	1 },
	{ "load",	PRED_C_LOAD,	 3, PRED_LOAD_SCALE, PRED_LOAD_MAX, 0 },
	{ "mem",	PRED_C_MEM,	 1, 0, PRED_MEM_MAX,		1 },
	{ "users",	PRED_C_USERS,	 1, 0, PRED_USERS_MAX,		0 },
};
#define NCOND_KWS	(sizeof(cond_kws) / sizeof(cond_kws[0]))

static const char *const action_words[PRED_A_MAX] = {
	[PRED_A_LIST] = "list",
	[PRED_A_ADD] = "add",
	[PRED_A_DEL] = "del",
	[PRED_A_CHECK] = "check",
};


/* Limits how much of an untrusted word goes into a message. */
static int
wlen(size_t len)
{
	return len > 64 ? 64 : (int)len;
}

static int
cond_kw_cmp(const void *key, const void *elem)
{
	const char *k = key;
	const struct cond_kw *ck = elem;

	return strcmp(k, ck->ck_name);
}

static const struct cond_kw *
cond_kw_find(const char *name, size_t len)
{
	char buf[16];

	if (len == 0 || len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return bsearch(buf, cond_kws, NCOND_KWS, sizeof(cond_kws[0]),
	    cond_kw_cmp);
}

static const struct cond_kw *
cond_kw_bytype(enum pred_ctype t)
{
	size_t i;

	for (i = 0; i < NCOND_KWS; i++)
		if (cond_kws[i].ck_type == t)
			return &cond_kws[i];
	return NULL;
}

const char *
pred_ctype_name(enum pred_ctype t)
{
	const struct cond_kw *ck;

	if ((ck = cond_kw_bytype(t)) == NULL)
		return "?";
	return ck->ck_name;
}

int
pred_decimal_parse(const char *s, size_t len, int scale, int64_t max,
    int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;
	int ndig = 0, nfrac = 0, d;

	if (scale < 0 || scale > 9 || max < 0) {
		errno = EINVAL;
		return -1;
	}
	for (; i < len && isdigit((unsigned char)s[i]); i++, ndig++) {
		d = s[i] - '0';
		if (v > (INT64_MAX - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		v = v * 10 + d;
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++) {
			ndig++;
			d = s[i] - '0';
			if (nfrac >= scale) {
				if (d != 0) {
					errno = EINVAL;
					return -1;
				}
				continue;
			}
			if (v > (INT64_MAX - d) / 10) {
				errno = ERANGE;
				return -1;
			}
			v = v * 10 + d;
			nfrac++;
		}
	}
	if (i != len || ndig == 0) {
		errno = EINVAL;
		return -1;
	}
	for (; nfrac < scale; nfrac++) {
		if (v > INT64_MAX / 10) {
			errno = ERANGE;
			return -1;
		}
		v *= 10;
	}
	if (v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

int
pred_decimal_format(int64_t v, int scale, char *buf, size_t bufsz)
{
	uint64_t u, div = 1, ip, fp;
	char frac[32];
	int i, n;

	if (scale < 0 || scale > 9) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < scale; i++)
		div *= 10;
	u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	ip = u / div;
	fp = u % div;
	frac[0] = '\0';
	if (fp != 0) {
		snprintf(frac, sizeof(frac), ".%0*llu", scale,
		    (unsigned long long)fp);
		for (n = (int)strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
	}
	n = snprintf(buf, bufsz, "%s%llu%s", v < 0 ? "-" : "",
	    (unsigned long long)ip, frac);
	if (n < 0 || (size_t)n >= bufsz) {
		errno = EOVERFLOW;
		return -1;
	}
	return n;
}

/* "HH:MM" (H one or two digits) into minutes; 24:00 only if allow24. */
static int
parse_hhmm(const char *s, size_t len, int allow24, int *out)
{
	int h, m;

	if (len == 4 && isdigit((unsigned char)s[0]) && s[1] == ':') {
		h = s[0] - '0';
		s += 2;
	} else if (len == 5 && isdigit((unsigned char)s[0]) &&
	    isdigit((unsigned char)s[1]) && s[2] == ':') {
		h = (s[0] - '0') * 10 + (s[1] - '0');
		s += 3;
	} else
		return -1;
	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
		return -1;
	m = (s[0] - '0') * 10 + (s[1] - '0');
	if (m > 59 || h > 24 || (h == 24 && (m != 0 || !allow24)))
		return -1;
	*out = h * 60 + m;
	return 0;
}

/* "HH:MM-HH:MM"; start and end must differ. */
static int
parse_hours(const char *s, size_t len, int64_t v[2])
{
	const char *dash;
	int a, b;

	if ((dash = memchr(s, '-', len)) == NULL)
		return -1;
	if (parse_hhmm(s, (size_t)(dash - s), 0, &a) == -1 ||
	    parse_hhmm(dash + 1, len - (size_t)(dash - s) - 1, 1, &b) == -1)
		return -1;
	if (a == b)
		return -1;	/* empty (or ambiguous) window */
	v[0] = a;
	v[1] = b;
	return 0;
}

/*
 * One number of a condition, starting at s + *pos and ending at ',', ':'
 * or the end.  Advances *pos past it.
 */
static int
parse_num(const char *s, size_t *pos, const struct cond_kw *ck, int64_t *out,
    char *err, size_t errlen)
{
	size_t start = *pos, len;

	len = strcspn(s + start, ",:");
	*pos = start + len;
	if (pred_decimal_parse(s + start, len, ck->ck_scale, ck->ck_max,
	    out) == 0)
		return 0;
	if (errno == ERANGE) {
		char lim[32];

		pred_decimal_format(ck->ck_max, ck->ck_scale, lim,
		    sizeof(lim));
		errbuf_set(err, errlen, "number '%.*s' out of range in %s "
		    "(at most %s)", wlen(len), s + start, ck->ck_name, lim);
	} else if (len == 0)
		errbuf_set(err, errlen, "missing number in %s", ck->ck_name);
	else
		errbuf_set(err, errlen, "bad number '%.*s' in %s", wlen(len),
		    s + start, ck->ck_name);
	return -1;
}

/* ck_nval numbers separated by commas into v. */
static int
parse_nums(const char *s, size_t *pos, size_t cstart,
    const struct cond_kw *ck, int64_t v[3], char *err, size_t errlen)
{
	int i;

	for (i = 0; i < ck->ck_nval; i++) {
		if (i > 0) {
			if (s[*pos] != ',') {
				errbuf_set(err, errlen,
				    "%s needs %d numbers in "
				    "'%.*s'", ck->ck_name, ck->ck_nval,
				    wlen(*pos - cstart), s + cstart);
				return -1;
			}
			(*pos)++;
		}
		if (parse_num(s, pos, ck, &v[i], err, errlen) == -1)
			return -1;
	}
	return 0;
}

/* May the stay thresholds be looser than (or equal to) become's? */
static int
hyst_ok(const struct cond_kw *ck, const struct pred_cond *c)
{
	int i;

	for (i = 0; i < ck->ck_nval; i++) {
		if (ck->ck_atleast && c->pc_stay[i] > c->pc_val[i])
			return 0;
		if (!ck->ck_atleast && c->pc_stay[i] < c->pc_val[i])
			return 0;
	}
	return 1;
}

/*
 * One condition starting at s + *pos.  With novalue_ok a bare kind
 * ("load") is accepted and *hasvalue set to 0.
 */
static int
parse_cond(const char *s, size_t *pos, int novalue_ok, struct pred_cond *c,
    int *hasvalue, char *err, size_t errlen)
{
	const struct cond_kw *ck;
	size_t start = *pos, nlen, tlen;

	memset(c, 0, sizeof(*c));
	nlen = strcspn(s + start, "=,");
	tlen = strcspn(s + start, ",");
	if (tlen == 0) {
		errbuf_set(err, errlen, "empty condition in '%.*s'",
		    wlen(strlen(s)), s);
		return -1;
	}
	if ((ck = cond_kw_find(s + start, nlen)) == NULL) {
		errbuf_set(err, errlen, "unknown condition '%.*s'", wlen(tlen),
		    s + start);
		return -1;
	}
	c->pc_type = ck->ck_type;
	*pos = start + nlen;
	if (s[*pos] != '=') {
		if (novalue_ok) {
			*hasvalue = 0;
			return 0;
		}
		errbuf_set(err, errlen, "missing value in '%.*s'", wlen(tlen),
		    s + start);
		return -1;
	}
	(*pos)++;
	*hasvalue = 1;
	if (ck->ck_type == PRED_C_HOURS) {
		tlen = strcspn(s + *pos, ",");
		if (parse_hours(s + *pos, tlen, c->pc_val) == -1) {
			errbuf_set(err, errlen,
			    "bad time range '%.*s' in hours",
			    wlen(tlen), s + *pos);
			return -1;
		}
		*pos += tlen;
		return 0;
	}
	if (parse_nums(s, pos, start, ck, c->pc_val, err, errlen) == -1)
		return -1;
	if (s[*pos] == ':') {
		(*pos)++;
		if (parse_nums(s, pos, start, ck, c->pc_stay, err,
		    errlen) == -1)
			return -1;
		c->pc_has_stay = 1;
		if (!hyst_ok(ck, c)) {
			errbuf_set(err, errlen, "stay threshold stricter than "
			    "become threshold in '%.*s'", wlen(*pos - start),
			    s + start);
			return -1;
		}
	}
	if (s[*pos] != ',' && s[*pos] != '\0') {
		tlen = strcspn(s + start, ",");
		errbuf_set(err, errlen, "unexpected '%c' in '%.*s'", s[*pos],
		    wlen(tlen), s + start);
		return -1;
	}
	return 0;
}

int
pred_conds_parse(const char *text, struct pred *p, char *err, size_t errlen)
{
	struct pred_cond c;
	size_t pos = 0;
	int hv;

	if (text == NULL || p == NULL) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		if (parse_cond(text, &pos, 0, &c, &hv, err, errlen) == -1)
			return -1;
		if (p->pr_cond[c.pc_type].pc_type != PRED_C_UNDEF) {
			errbuf_set(err, errlen, "duplicate condition '%s' in "
			    "'%.*s'", pred_ctype_name(c.pc_type),
			    wlen(strlen(text)), text);
			return -1;
		}
		p->pr_cond[c.pc_type] = c;
		if (text[pos] == '\0')
			return 0;
		pos++;			/* the ',' between conditions */
		if (text[pos] == '\0') {
			errbuf_set(err, errlen,
			    "empty condition at end of '%.*s'",
			    wlen(pos), text);
			return -1;
		}
	}
}

/* A single condition for "del", with or without a value. */
static int
parse_one_cond(const char *text, struct pred_cond *c, int *hasvalue,
    char *err, size_t errlen)
{
	size_t pos = 0;

	if (parse_cond(text, &pos, 1, c, hasvalue, err, errlen) == -1)
		return -1;
	if (text[pos] != '\0') {
		errbuf_set(err, errlen, "del takes one condition, not '%.*s'",
		    wlen(strlen(text)), text);
		return -1;
	}
	return 0;
}

static int
valid_name(const char *s, size_t len, size_t max, int host)
{
	size_t i;

	if (len == 0 || len > max || s[0] == '-' || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++) {
		if (isalnum((unsigned char)s[i]) || s[i] == '.' ||
		    s[i] == '_' || s[i] == '-')
			continue;
		if (host && s[i] == ':')
			continue;
		return 0;
	}
	return 1;
}

static int
is_action(const char *w)
{
	int a;

	for (a = PRED_A_UNDEF + 1; a < PRED_A_MAX; a++)
		if (strcmp(w, action_words[a]) == 0)
			return a;
	return PRED_A_UNDEF;
}

/* Does w look like a condition ("load=...", "idletime")? */
static int
looks_like_cond(const char *w)
{
	return cond_kw_find(w, strcspn(w, "=,")) != NULL;
}

int
pred_scope_parse(int argc, char *const argv[], struct pred_scope *scope,
    char *err, size_t errlen)
{
	struct pred_scope s;
	const char *w, *always = NULL, *global = NULL, *user = NULL;
	const char *node = NULL;
	int i;

	if (argc < 0 || (argc > 0 && argv == NULL) || scope == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (argc == 0) {
		errbuf_set(err, errlen,
		    "missing scope (always, node=H, user=U)");
		return -1;
	}
	memset(&s, 0, sizeof(s));
	for (i = 0; i < argc; i++) {
		const char **slot;
		size_t max = 0, len;
		int host = 0;

		w = argv[i];
		if (strcmp(w, "always") == 0)
			slot = &always;
		else if (strcmp(w, "global") == 0)
			slot = &global;
		else if (strncmp(w, "user=", 5) == 0) {
			slot = &user;
			max = PRED_USER_MAX;
		} else if (strncmp(w, "node=", 5) == 0) {
			slot = &node;
			max = PRED_NODE_MAX;
			host = 1;
		} else {
			if (is_action(w) != PRED_A_UNDEF)
				errbuf_set(err, errlen, "action '%s' needs a "
				    "scope before it", w);
			else if (looks_like_cond(w))
				errbuf_set(err, errlen, "missing action before "
				    "'%.*s' (add, del, list or check)",
				    wlen(strlen(w)), w);
			else
				errbuf_set(err, errlen, "unknown scope word "
				    "'%.*s'", wlen(strlen(w)), w);
			return -1;
		}
		if (*slot != NULL) {
			errbuf_set(err, errlen, "duplicate scope word '%.*s'",
			    wlen(strlen(w)), w);
			return -1;
		}
		if (max != 0) {
			len = strlen(w + 5);
			if (!valid_name(w + 5, len, max, host)) {
				errbuf_set(err, errlen, "bad %s name in '%.*s'",
				    host ? "node" : "user", wlen(strlen(w)),
				    w);
				return -1;
			}
		}
		*slot = w;
	}
	if (global != NULL && user == NULL) {
		errbuf_set(err, errlen, "'global' needs user=U");
		return -1;
	}
	if (global != NULL && node != NULL) {
		errbuf_set(err, errlen,
		    "'global' cannot be combined with '%.*s'",
		    wlen(strlen(node)), node);
		return -1;
	}
	if (always != NULL && user != NULL) {
		errbuf_set(err, errlen,
		    "'always' cannot be combined with '%.*s'",
		    wlen(strlen(user)), user);
		return -1;
	}
	if (user != NULL)
		strlcpy(s.ps_user, user + 5, sizeof(s.ps_user));
	if (node != NULL)
		strlcpy(s.ps_node, node + 5, sizeof(s.ps_node));
	if (user != NULL && global != NULL)
		s.ps_type = PRED_S_USER_GLOBAL;
	else if (user != NULL && node != NULL)
		s.ps_type = PRED_S_USER_NODE;
	else if (user != NULL)
		s.ps_type = PRED_S_USER;
	else if (node != NULL)
		s.ps_type = PRED_S_NODE;	/* also "always node=H" */
	else
		s.ps_type = PRED_S_ALWAYS;
	*scope = s;
	return 0;
}

int
pred_cmd_parse(int argc, char *const argv[], struct pred_cmd *cmd,
    char *err, size_t errlen)
{
	struct pred_cmd c;
	int nscope, i, hv;
	enum pred_action a;

	if (argc < 0 || (argc > 0 && argv == NULL) || cmd == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (argc > PRED_ARGS_MAX) {
		errbuf_set(err, errlen, "too many words (at most %d)",
		    PRED_ARGS_MAX);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	for (nscope = 0; nscope < argc; nscope++)
		if (is_action(argv[nscope]) != PRED_A_UNDEF)
			break;
	if (nscope > 0) {
		if (pred_scope_parse(nscope, argv, &c.cm_pred.pr_scope, err,
		    errlen) == -1)
			return -1;
		c.cm_has_scope = 1;
	}
	if (nscope == argc) {
		c.cm_action = PRED_A_LIST;
		*cmd = c;
		return 0;
	}
	a = is_action(argv[nscope]);
	c.cm_action = a;
	i = nscope + 1;
	switch (a) {
	case PRED_A_LIST:
		break;
	case PRED_A_CHECK:
		if (!c.cm_has_scope || c.cm_pred.pr_scope.ps_type !=
		    PRED_S_NODE) {
			errbuf_set(err, errlen, "check needs the scope node=H");
			return -1;
		}
		break;
	case PRED_A_ADD:
	case PRED_A_DEL:
		if (!c.cm_has_scope) {
			errbuf_set(err, errlen, "%s needs a scope before it "
			    "(always, node=H, user=U)", argv[nscope]);
			return -1;
		}
		if (i == argc) {
			errbuf_set(err, errlen, "missing condition after '%s'",
			    argv[nscope]);
			return -1;
		}
		if (a == PRED_A_DEL) {
			if (parse_one_cond(argv[i], &c.cm_del, &hv, err,
			    errlen) == -1)
				return -1;
			c.cm_del_value = hv;
			i++;
			break;
		}
		/* add: one or more condition lists, one per word */
		for (; i < argc; i++)
			if (pred_conds_parse(argv[i], &c.cm_pred, err,
			    errlen) == -1)
				return -1;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (i < argc) {
		errbuf_set(err, errlen, "unexpected word '%.*s' after '%s'",
		    wlen(strlen(argv[i])), argv[i], argv[nscope]);
		return -1;
	}
	*cmd = c;
	return 0;
}

int
pred_parse(const char *line, struct pred *p, char *err, size_t errlen)
{
	char buf[PRED_LINE_MAX], *words[PRED_ARGS_MAX + 1], *w, *last;
	struct pred_cmd cmd;
	int n = 0;

	if (line == NULL || p == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (strlcpy(buf, line, sizeof(buf)) >= sizeof(buf)) {
		errbuf_set(err, errlen, "line too long (at most %d bytes)",
		    PRED_LINE_MAX - 1);
		return -1;
	}
	for (w = strtok_r(buf, " \t\r\n", &last); w != NULL;
	    w = strtok_r(NULL, " \t\r\n", &last)) {
		if (n == PRED_ARGS_MAX) {
			errbuf_set(err, errlen, "too many words (at most %d)",
			    PRED_ARGS_MAX);
			return -1;
		}
		words[n++] = w;
	}
	words[n] = NULL;
	if (pred_cmd_parse(n, words, &cmd, err, errlen) == -1)
		return -1;
	if (cmd.cm_action != PRED_A_ADD) {
		errbuf_set(err, errlen, "expected 'SCOPE add CONDITIONS'");
		return -1;
	}
	memset(p, 0, sizeof(*p));
	p->pr_scope = cmd.cm_pred.pr_scope;
	memcpy(p->pr_cond, cmd.cm_pred.pr_cond, sizeof(p->pr_cond));
	return 0;
}

/* Appends to buf at *off like snprintf; remembers overflow in *ovf. */
static void	bput(char *, size_t, size_t *, int *, const char *, ...)
		    __attribute__((format(printf, 5, 6)));

static void
bput(char *buf, size_t bufsz, size_t *off, int *ovf, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= bufsz) {
		*ovf = 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, bufsz - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= bufsz - *off) {
		*ovf = 1;
		*off = bufsz;
		return;
	}
	*off += (size_t)n;
}

static int
bdone(size_t off, int ovf)
{
	if (ovf) {
		errno = EOVERFLOW;
		return -1;
	}
	return (int)off;
}

static void
put_nums(char *buf, size_t bufsz, size_t *off, int *ovf,
    const struct cond_kw *ck, const int64_t *v)
{
	char num[32];
	int i;

	for (i = 0; i < ck->ck_nval; i++) {
		if (pred_decimal_format(v[i], ck->ck_scale, num,
		    sizeof(num)) == -1)
			strlcpy(num, "?", sizeof(num));
		bput(buf, bufsz, off, ovf, "%s%s", i > 0 ? "," : "", num);
	}
}

int
pred_cond_format(const struct pred_cond *c, char *buf, size_t bufsz)
{
	const struct cond_kw *ck;
	size_t off = 0;
	int ovf = 0;

	if (bufsz == 0) {
		errno = EOVERFLOW;
		return -1;
	}
	buf[0] = '\0';
	if ((ck = cond_kw_bytype(c->pc_type)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	bput(buf, bufsz, &off, &ovf, "%s=", ck->ck_name);
	if (c->pc_type == PRED_C_HOURS) {
		bput(buf, bufsz, &off, &ovf, "%02d:%02d-%02d:%02d",
		    (int)(c->pc_val[0] / 60), (int)(c->pc_val[0] % 60),
		    (int)(c->pc_val[1] / 60), (int)(c->pc_val[1] % 60));
		return bdone(off, ovf);
	}
	put_nums(buf, bufsz, &off, &ovf, ck, c->pc_val);
	if (c->pc_has_stay) {
		bput(buf, bufsz, &off, &ovf, ":");
		put_nums(buf, bufsz, &off, &ovf, ck, c->pc_stay);
	}
	return bdone(off, ovf);
}

int
pred_scope_format(const struct pred_scope *s, char *buf, size_t bufsz)
{
	size_t off = 0;
	int ovf = 0;

	if (bufsz == 0) {
		errno = EOVERFLOW;
		return -1;
	}
	buf[0] = '\0';
	switch (s->ps_type) {
	case PRED_S_ALWAYS:
		bput(buf, bufsz, &off, &ovf, "always");
		break;
	case PRED_S_NODE:
		bput(buf, bufsz, &off, &ovf, "node=%s", s->ps_node);
		break;
	case PRED_S_USER:
		bput(buf, bufsz, &off, &ovf, "user=%s", s->ps_user);
		break;
	case PRED_S_USER_GLOBAL:
		bput(buf, bufsz, &off, &ovf, "user=%s global", s->ps_user);
		break;
	case PRED_S_USER_NODE:
		bput(buf, bufsz, &off, &ovf, "user=%s node=%s", s->ps_user,
		    s->ps_node);
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	return bdone(off, ovf);
}

int
pred_format(const struct pred *p, char *buf, size_t bufsz)
{
	char tmp[PRED_TEXT_MAX];
	size_t off = 0;
	int ovf = 0, t, first = 1;

	if (pred_scope_format(&p->pr_scope, buf, bufsz) == -1)
		return -1;
	off = strlen(buf);
	bput(buf, bufsz, &off, &ovf, " add ");
	for (t = PRED_C_UNDEF + 1; t < PRED_C_MAX; t++) {
		if (p->pr_cond[t].pc_type == PRED_C_UNDEF)
			continue;
		if (pred_cond_format(&p->pr_cond[t], tmp, sizeof(tmp)) == -1)
			return -1;
		bput(buf, bufsz, &off, &ovf, "%s%s", first ? "" : ",", tmp);
		first = 0;
	}
	if (first) {
		errno = EINVAL;		/* a predicate without conditions */
		return -1;
	}
	return bdone(off, ovf);
}

int
pred_scope_equal(const struct pred_scope *a, const struct pred_scope *b)
{
	return a->ps_type == b->ps_type &&
	    strcmp(a->ps_user, b->ps_user) == 0 &&
	    strcasecmp(a->ps_node, b->ps_node) == 0;
}

int
pred_cond_equal(const struct pred_cond *a, const struct pred_cond *b)
{
	int i;

	if (a->pc_type != b->pc_type || a->pc_has_stay != b->pc_has_stay)
		return 0;
	for (i = 0; i < 3; i++) {
		if (a->pc_val[i] != b->pc_val[i])
			return 0;
		if (a->pc_has_stay && a->pc_stay[i] != b->pc_stay[i])
			return 0;
	}
	return 1;
}

int
pred_equal(const struct pred *a, const struct pred *b)
{
	int t;

	if (!pred_scope_equal(&a->pr_scope, &b->pr_scope))
		return 0;
	for (t = 0; t < PRED_C_MAX; t++)
		if (!pred_cond_equal(&a->pr_cond[t], &b->pr_cond[t]))
			return 0;
	return 1;
}

size_t
pred_ncond(const struct pred *p)
{
	size_t n = 0;
	int t;

	for (t = PRED_C_UNDEF + 1; t < PRED_C_MAX; t++)
		if (p->pr_cond[t].pc_type != PRED_C_UNDEF)
			n++;
	return n;
}

int
pred_node_match(const char *pattern, const char *node)
{
	size_t plen, llen;

	if (pattern == NULL || node == NULL || *pattern == '\0')
		return 0;
	if (strcasecmp(pattern, node) == 0)
		return 1;
	if (strchr(pattern, '.') != NULL ||
	    !isalpha((unsigned char)node[0]))
		return 0;
	plen = strlen(pattern);
	llen = strcspn(node, ".");
	return node[llen] == '.' && llen == plen &&
	    strncasecmp(pattern, node, plen) == 0;
}
