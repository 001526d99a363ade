/*
 * pred_set — the stored predicates: a sorted list with at most one
 * predicate per scope, add/del, and the text file they are kept in
 * (loaded in full or not at all, saved atomically).
 */
#include "pred.h"
#include "errbuf.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PRED_LOAD_ERRS_MAX	50	/* messages printed per file */

TAILQ_HEAD(pred_list, pred);

struct pred_set {
	struct pred_list	st_list;
	size_t			st_n;
};


struct pred_set *
pred_set_new(void)
{
	struct pred_set *set;

	if ((set = calloc(1, sizeof(*set))) == NULL)
		return NULL;
	TAILQ_INIT(&set->st_list);
	return set;
}

void
pred_set_clear(struct pred_set *set)
{
	struct pred *p;

	if (set == NULL)
		return;
	while ((p = TAILQ_FIRST(&set->st_list)) != NULL) {
		TAILQ_REMOVE(&set->st_list, p, pr_entry);
		free(p);
	}
	set->st_n = 0;
}

void
pred_set_keep_node(struct pred_set *set, int node)
{
	struct pred *p, *next;

	if (set == NULL)
		return;
	for (p = TAILQ_FIRST(&set->st_list); p != NULL; p = next) {
		next = TAILQ_NEXT(p, pr_entry);
		if ((p->pr_scope.ps_type == PRED_S_NODE) != (node != 0)) {
			TAILQ_REMOVE(&set->st_list, p, pr_entry);
			set->st_n--;
			free(p);
		}
	}
}

void
pred_set_free(struct pred_set *set)
{
	if (set == NULL)
		return;
	pred_set_clear(set);
	free(set);
}

size_t
pred_set_count(const struct pred_set *set)
{
	return set == NULL ? 0 : set->st_n;
}

const struct pred *
pred_set_first(const struct pred_set *set)
{
	return set == NULL ? NULL : TAILQ_FIRST(&set->st_list);
}

const struct pred *
pred_set_next(const struct pred *p)
{
	return TAILQ_NEXT(p, pr_entry);
}

static int
scope_cmp(const struct pred_scope *a, const struct pred_scope *b)
{
	int c;

	if (a->ps_type != b->ps_type)
		return a->ps_type < b->ps_type ? -1 : 1;
	if ((c = strcmp(a->ps_user, b->ps_user)) != 0)
		return c;
	return strcasecmp(a->ps_node, b->ps_node);
}

static struct pred *
set_find(const struct pred_set *set, const struct pred_scope *s)
{
	struct pred *p;

	TAILQ_FOREACH(p, &set->st_list, pr_entry)
		if (scope_cmp(&p->pr_scope, s) == 0)
			return p;
	return NULL;
}

const struct pred *
pred_set_find(const struct pred_set *set, const struct pred_scope *s)
{
	if (set == NULL || s == NULL)
		return NULL;
	return set_find(set, s);
}

int
pred_set_equal(const struct pred_set *a, const struct pred_set *b)
{
	const struct pred *p, *q;

	if (pred_set_count(a) != pred_set_count(b))
		return 0;
	for (p = pred_set_first(a), q = pred_set_first(b);
	    p != NULL && q != NULL;
	    p = pred_set_next(p), q = pred_set_next(q))
		if (!pred_equal(p, q))
			return 0;
	return p == NULL && q == NULL;
}

/*
 * A predicate that did not come from the parser is checked by printing
 * and parsing it again: that applies every rule of the language.
 */
static int
pred_check(const struct pred *p, char *err, size_t errlen)
{
	char text[PRED_TEXT_MAX];
	struct pred q;

	if (p->pr_scope.ps_type <= PRED_S_UNDEF ||
	    p->pr_scope.ps_type >= PRED_S_MAX ||
	    memchr(p->pr_scope.ps_user, '\0', sizeof(p->pr_scope.ps_user))
	    == NULL ||
	    memchr(p->pr_scope.ps_node, '\0', sizeof(p->pr_scope.ps_node))
	    == NULL) {
		errbuf_set(err, errlen, "invalid scope");
		return -1;
	}
	if (pred_format(p, text, sizeof(text)) == -1) {
		errbuf_set(err, errlen, "invalid predicate");
		return -1;
	}
	if (pred_parse(text, &q, err, errlen) == -1)
		return -1;
	if (!pred_equal(p, &q)) {
		errbuf_set(err, errlen, "invalid predicate '%s'", text);
		return -1;
	}
	return 0;
}

static void
set_insert(struct pred_set *set, struct pred *np)
{
	struct pred *p;

	TAILQ_FOREACH(p, &set->st_list, pr_entry) {
		if (scope_cmp(&np->pr_scope, &p->pr_scope) < 0) {
			TAILQ_INSERT_BEFORE(p, np, pr_entry);
			set->st_n++;
			return;
		}
	}
	TAILQ_INSERT_TAIL(&set->st_list, np, pr_entry);
	set->st_n++;
}

/* With no_dup, a kind already present is an error instead of replaced. */
static int
set_add(struct pred_set *set, const struct pred *p, int no_dup, char *err,
    size_t errlen)
{
	struct pred *old, *np;
	char scope[PRED_TEXT_MAX];
	int t;

	if (pred_check(p, err, errlen) == -1)
		return -1;
	if ((old = set_find(set, &p->pr_scope)) != NULL) {
		for (t = PRED_C_UNDEF + 1; t < PRED_C_MAX; t++) {
			if (!no_dup || p->pr_cond[t].pc_type == PRED_C_UNDEF ||
			    old->pr_cond[t].pc_type == PRED_C_UNDEF)
				continue;
			pred_scope_format(&p->pr_scope, scope, sizeof(scope));
			errbuf_set(err, errlen, "duplicate condition '%s' for "
			    "scope '%s'", pred_ctype_name((enum pred_ctype)t),
			    scope);
			return -1;
		}
		for (t = PRED_C_UNDEF + 1; t < PRED_C_MAX; t++)
			if (p->pr_cond[t].pc_type != PRED_C_UNDEF)
				old->pr_cond[t] = p->pr_cond[t];
		return 0;
	}
	if (set->st_n >= PRED_SET_MAX) {
		errbuf_set(err, errlen, "too many predicates (at most %d)",
		    PRED_SET_MAX);
		errno = ENOSPC;
		return -1;
	}
	if ((np = calloc(1, sizeof(*np))) == NULL) {
		errbuf_set(err, errlen, "out of memory");
		return -1;
	}
	np->pr_scope = p->pr_scope;
	memcpy(np->pr_cond, p->pr_cond, sizeof(np->pr_cond));
	set_insert(set, np);
	return 0;
}

int
pred_set_add(struct pred_set *set, const struct pred *p, char *err,
    size_t errlen)
{
	if (set == NULL || p == NULL) {
		errno = EINVAL;
		return -1;
	}
	return set_add(set, p, 0, err, errlen);
}

int
pred_set_del(struct pred_set *set, const struct pred_scope *s,
    const struct pred_cond *c, int exact, char *err, size_t errlen)
{
	struct pred *p;
	char text[PRED_TEXT_MAX], ctext[PRED_TEXT_MAX];

	if (set == NULL || s == NULL || c == NULL ||
	    c->pc_type <= PRED_C_UNDEF || c->pc_type >= PRED_C_MAX) {
		errno = EINVAL;
		return -1;
	}
	if ((p = set_find(set, s)) == NULL ||
	    p->pr_cond[c->pc_type].pc_type == PRED_C_UNDEF ||
	    (exact && !pred_cond_equal(&p->pr_cond[c->pc_type], c))) {
		if (pred_scope_format(s, text, sizeof(text)) == -1)
			strlcpy(text, "?", sizeof(text));
		if (!exact || pred_cond_format(c, ctext, sizeof(ctext)) == -1)
			strlcpy(ctext, pred_ctype_name(c->pc_type),
			    sizeof(ctext));
		errbuf_set(err, errlen,
		    "no such predicate '%s %s'", text, ctext);
		errno = ENOENT;
		return -1;
	}
	memset(&p->pr_cond[c->pc_type], 0, sizeof(p->pr_cond[0]));
	if (pred_ncond(p) == 0) {
		TAILQ_REMOVE(&set->st_list, p, pr_entry);
		set->st_n--;
		free(p);
	}
	return 0;
}

int
pred_set_apply(struct pred_set *set, const struct pred_cmd *cmd, char *err,
    size_t errlen)
{
	if (set == NULL || cmd == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cmd->cm_action == PRED_A_ADD && cmd->cm_has_scope)
		return pred_set_add(set, &cmd->cm_pred, err, errlen);
	if (cmd->cm_action == PRED_A_DEL && cmd->cm_has_scope)
		return pred_set_del(set, &cmd->cm_pred.pr_scope, &cmd->cm_del,
		    cmd->cm_del_value, err, errlen);
	errbuf_set(err, errlen, "only add and del change predicates");
	errno = EINVAL;
	return -1;
}

int
pred_set_default(struct pred_set *set)
{
	struct pred p;

	if (set == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (pred_parse(PRED_DEFAULT_TEXT, &p, NULL, 0) == -1) {
		errno = EINVAL;
		return -1;
	}
	pred_set_clear(set);
	return pred_set_add(set, &p, NULL, 0);
}

int
pred_set_print(const struct pred_set *set, const struct pred_scope *filter,
    FILE *fp)
{
	const struct pred *p;
	char text[PRED_TEXT_MAX];

	for (p = pred_set_first(set); p != NULL; p = pred_set_next(p)) {
		if (filter != NULL && !pred_scope_equal(filter, &p->pr_scope))
			continue;
		if (pred_format(p, text, sizeof(text)) == -1)
			return -1;
		if (fprintf(fp, "%s\n", text) < 0)
			return -1;
	}
	return ferror(fp) ? -1 : 0;
}

/* Reads a whole regular file of at most max bytes; NUL-terminated. */
static char *
read_small_file(const char *path, size_t max, size_t *lenp, int *toobig)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, saved;

	*toobig = 0;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;	/* not a regular file */
		goto fail;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		errno = EPERM;
		goto fail;
	}
	if ((buf = malloc(max + 1)) == NULL)
		goto fail;
	for (;;) {
		n = read(fd, buf + len, max + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			*toobig = 1;
			errno = EFBIG;
			goto fail;
		}
	}
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

static void	load_err(FILE *, int *, const char *, int, const char *, ...)
		    __attribute__((format(printf, 5, 6)));

static void
load_err(FILE *errs, int *nerr, const char *path, int line,
    const char *fmt, ...)
{
	va_list ap;

	(*nerr)++;
	if (errs == NULL || *nerr > PRED_LOAD_ERRS_MAX)
		return;
	fprintf(errs, "%s:%d: ", path, line);
	if (*nerr == PRED_LOAD_ERRS_MAX) {
		fprintf(errs, "too many errors\n");
		return;
	}
	va_start(ap, fmt);
	vfprintf(errs, fmt, ap);
	va_end(ap);
	fputc('\n', errs);
}

int
pred_set_load(struct pred_set *set, const char *path, int missing_ok,
    FILE *errs)
{
	struct pred_set *tmp;
	struct pred p;
	char *buf, *line, *next, *s, err[256];
	size_t len, llen;
	int nerr = 0, lineno = 0, toobig;

	if (set == NULL || path == NULL) {
		errno = EINVAL;
		return -1;
	}
	if ((buf = read_small_file(path, PRED_FILE_MAX, &len,
	    &toobig)) == NULL) {
		if (errno == ENOENT && missing_ok) {
			pred_set_clear(set);
			return 0;
		}
		return -1;
	}
	if ((tmp = pred_set_new()) == NULL) {
		free(buf);
		return -1;
	}
	for (line = buf; line < buf + len; line = next) {
		lineno++;
		if ((next = memchr(line, '\n', (size_t)(buf + len - line)))
		    == NULL)
			next = buf + len;
		llen = (size_t)(next - line);
		if (next < buf + len)
			*next++ = '\0';
		if (memchr(line, '\0', llen) != NULL) {
			load_err(errs, &nerr, path, lineno, "NUL byte");
			continue;
		}
		if (llen >= PRED_LINE_MAX) {
			load_err(errs, &nerr, path, lineno,
			    "line too long (at most %d bytes)",
			    PRED_LINE_MAX - 1);
			continue;
		}
		for (s = line; *s == ' ' || *s == '\t' || *s == '\r'; s++)
			;
		if (*s == '\0' || *s == '#')
			continue;
		if (pred_parse(s, &p, err, sizeof(err)) == -1 ||
		    set_add(tmp, &p, 1, err, sizeof(err)) == -1) {
			load_err(errs, &nerr, path, lineno, "%s", err);
			continue;
		}
	}
	free(buf);
	if (nerr > 0) {
		pred_set_free(tmp);
		return nerr;
	}
	pred_set_clear(set);
	TAILQ_CONCAT(&set->st_list, &tmp->st_list, pr_entry);
	set->st_n = tmp->st_n;
	tmp->st_n = 0;
	pred_set_free(tmp);
	return 0;
}

int
pred_set_save(const struct pred_set *set, const char *path)
{
	char tmpl[PATH_MAX], dir[PATH_MAX];
	const char *slash;
	FILE *fp = NULL;
	int fd = -1, dfd, saved;

	if (set == NULL || path == NULL || *path == '\0') {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s.XXXXXX", path) >=
	    sizeof(tmpl)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((slash = strrchr(path, '/')) == NULL)
		strlcpy(dir, ".", sizeof(dir));
	else if (slash == path)
		strlcpy(dir, "/", sizeof(dir));
	else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	if ((fd = mkostemp(tmpl, O_CLOEXEC)) == -1)
		return -1;
	if (fchmod(fd, 0644) == -1)
		goto fail;
	if ((fp = fdopen(fd, "w")) == NULL)
		goto fail;
	fd = -1;
	if (fprintf(fp, "# cilknow idleness predicates, "
	    "cilknow-predicates(5)\n") < 0 ||
	    pred_set_print(set, NULL, fp) == -1 || fflush(fp) == EOF ||
	    fsync(fileno(fp)) == -1)
		goto fail;
	if (fclose(fp) == EOF) {
		fp = NULL;
		goto fail;
	}
	fp = NULL;
	if (rename(tmpl, path) == -1)
		goto fail;
	/* The rename is durable once the directory is; best effort. */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	saved = errno;
	if (fp != NULL)
		fclose(fp);
	if (fd != -1)
		close(fd);
	unlink(tmpl);
	errno = saved;
	return -1;
}
