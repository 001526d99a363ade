/* proto_pred — codecs of the predicate messages (cilknow-protocol(7)). */
#include "proto_pred.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest sane measurement: ten years of idleness, a huge load or RAM. */
#define MEAS_ABS_MAX	1e12

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

/*
 * A measurement as the IEEE-754 bits of a double, big-endian: exact,
 * and "unknown" (negative or NaN) survives the trip.
 */
static void
put_double(struct wire_w *w, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	wire_put_u64(w, u);
}

/* Infinities and absurd magnitudes are refused; NaN means unknown. */
static int
get_double(struct wire_r *r, double *d)
{
	uint64_t u;

	if (wire_get_u64(r, &u) == -1)
		return -1;
	memcpy(d, &u, sizeof(*d));
	if (isnan(*d))
		return 0;
	return fabs(*d) <= MEAS_ABS_MAX ? 0 : -1;
}

/* A long text: u32 length, bytes without NUL, at most max. */
static void
put_text(struct wire_w *w, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n > PROTO_PRED_TEXT_MAX) {
		w->ww_overflow = 1;
		return;
	}
	wire_put_u32(w, (uint32_t)n);
	if (n > 0)
		wire_put_bytes(w, s, n);
}

static int
get_text(struct wire_r *r, char **out)
{
	const uint8_t *p;
	uint32_t n;

	*out = NULL;
	if (wire_get_u32(r, &n) == -1 || n > PROTO_PRED_TEXT_MAX ||
	    wire_get_ref(r, &p, n) == -1 || memchr(p, '\0', n) != NULL)
		return -1;
	if ((*out = malloc((size_t)n + 1)) == NULL)
		return -1;
	memcpy(*out, p, n);
	(*out)[n] = '\0';
	return 0;
}

static void
put_users(struct wire_w *w, const struct pred_user *u, size_t n)
{
	size_t i;

	if (n > PRED_MEAS_USERS_MAX) {
		w->ww_overflow = 1;
		return;
	}
	wire_put_u16(w, (uint16_t)n);
	for (i = 0; i < n; i++) {
		wire_put_str(w, u[i].pu_name);
		put_double(w, u[i].pu_idle);
	}
}

static int
get_users(struct wire_r *r, struct pred_user *u, uint16_t *np)
{
	uint16_t n, i;

	if (wire_get_u16(r, &n) == -1 || n > PRED_MEAS_USERS_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (wire_get_str(r, u[i].pu_name, sizeof(u[i].pu_name)) ==
		    -1 || u[i].pu_name[0] == '\0' ||
		    get_double(r, &u[i].pu_idle) == -1)
			return -1;
	*np = n;
	return 0;
}

void
proto_pred_meas_put(struct wire_w *w, const struct pred_meas *m)
{
	int i;

	put_double(w, m->pm_idle);
	wire_put_u32(w, (uint32_t)(m->pm_nusers < 0 ? 0 : m->pm_nusers));
	for (i = 0; i < 3; i++)
		put_double(w, m->pm_load[i]);
	put_double(w, m->pm_mem);
	/* Minute of day, 0xffff: unknown. */
	wire_put_u16(w, m->pm_tod < 0 || m->pm_tod > 1439 ? 0xffff :
	    (uint16_t)m->pm_tod);
	put_users(w, m->pm_user, m->pm_nuser);
}

int
proto_pred_meas_get(struct wire_r *r, struct pred_meas *m)
{
	uint32_t nusers;
	uint16_t tod, n;
	int i;

	memset(m, 0, sizeof(*m));
	if (get_double(r, &m->pm_idle) == -1 ||
	    wire_get_u32(r, &nusers) == -1 || nusers > PRED_USERS_MAX)
		return -1;
	m->pm_nusers = (int)nusers;
	for (i = 0; i < 3; i++)
		if (get_double(r, &m->pm_load[i]) == -1)
			return -1;
	if (get_double(r, &m->pm_mem) == -1 || wire_get_u16(r, &tod) == -1 ||
	    (tod != 0xffff && tod > 1439))
		return -1;
	m->pm_tod = tod == 0xffff ? -1 : tod;
	if (get_users(r, m->pm_user, &n) == -1)
		return -1;
	m->pm_nuser = n;
	return 0;
}

size_t
proto_pred_req_enc(const struct proto_pred_req *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->pq_action);
	wire_put_str(&w, m->pq_cmd);
	wire_put_u8(&w, m->pq_has_cookie ? 1 : 0);
	if (m->pq_has_cookie)
		wire_put_bytes(&w, m->pq_cookie, PROTO_COOKIE_LEN);
	return finish(&w);
}

int
proto_pred_req_dec(struct proto_pred_req *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->pq_action) == -1 ||
	    m->pq_action == PRED_A_UNDEF || m->pq_action >= PRED_A_MAX ||
	    wire_get_str(&r, m->pq_cmd, sizeof(m->pq_cmd)) == -1 ||
	    wire_get_u8(&r, &m->pq_has_cookie) == -1 ||
	    m->pq_has_cookie > 1 || (m->pq_has_cookie &&
	    wire_get_bytes(&r, m->pq_cookie, PROTO_COOKIE_LEN) == -1) ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_pred_ans_enc(const struct proto_pred_ans *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->pa_action);
	wire_put_str(&w, m->pa_node);
	put_text(&w, m->pa_text);
	wire_put_u8(&w, m->pa_has_meas != 0);
	if (m->pa_has_meas) {
		wire_put_u8(&w, m->pa_idle != 0);
		proto_pred_meas_put(&w, &m->pa_meas);
		put_users(&w, m->pa_cluster, m->pa_ncluster);
	}
	return finish(&w);
}

int
proto_pred_ans_dec(struct proto_pred_ans *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->pa_action) == -1 ||
	    m->pa_action == PRED_A_UNDEF || m->pa_action >= PRED_A_MAX ||
	    wire_get_str(&r, m->pa_node, sizeof(m->pa_node)) == -1 ||
	    get_text(&r, &m->pa_text) == -1 ||
	    wire_get_u8(&r, &m->pa_has_meas) == -1 || m->pa_has_meas > 1)
		return -1;
	if (m->pa_has_meas &&
	    (wire_get_u8(&r, &m->pa_idle) == -1 || m->pa_idle > 1 ||
	    proto_pred_meas_get(&r, &m->pa_meas) == -1 ||
	    get_users(&r, m->pa_cluster, &m->pa_ncluster) == -1))
		return -1;
	return wire_get_end(&r);
}

void
proto_pred_ans_free(struct proto_pred_ans *m)
{
	free(m->pa_text);
	m->pa_text = NULL;
}

size_t
proto_pred_push_enc(const struct proto_pred_push *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u64(&w, m->pp_epoch);
	put_text(&w, m->pp_text);
	put_users(&w, m->pp_cluster, m->pp_ncluster);
	return finish(&w);
}

int
proto_pred_push_dec(struct proto_pred_push *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u64(&r, &m->pp_epoch) == -1 ||
	    get_text(&r, &m->pp_text) == -1 ||
	    get_users(&r, m->pp_cluster, &m->pp_ncluster) == -1)
		return -1;
	return wire_get_end(&r);
}

void
proto_pred_push_free(struct proto_pred_push *m)
{
	free(m->pp_text);
	m->pp_text = NULL;
}

size_t
proto_pred_users_enc(const struct proto_pred_users *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	put_users(&w, m->pu_user, m->pu_n);
	return finish(&w);
}

int
proto_pred_users_dec(struct proto_pred_users *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (get_users(&r, m->pu_user, &m->pu_n) == -1)
		return -1;
	return wire_get_end(&r);
}

int
proto_pred_join(int argc, char *const argv[], char *buf, size_t bufsz)
{
	size_t n = 0, k;
	int i;

	if (bufsz == 0)
		return -1;
	buf[0] = '\0';
	for (i = 0; i < argc; i++) {
		k = strlen(argv[i]);
		if (k == 0 || strpbrk(argv[i], " \t\n") != NULL ||
		    n + (i > 0) + k >= bufsz)
			return -1;
		if (i > 0)
			buf[n++] = ' ';
		memcpy(buf + n, argv[i], k + 1);
		n += k;
	}
	return 0;
}

int
proto_pred_split(const char *cmd, char *buf, size_t bufsz, char *argv[],
    int max, int *argc)
{
	char *p, *save = NULL;
	int n = 0;

	if (strlcpy(buf, cmd, bufsz) >= bufsz)
		return -1;
	for (p = strtok_r(buf, " ", &save); p != NULL;
	    p = strtok_r(NULL, " ", &save)) {
		if (n >= max)
			return -1;
		argv[n++] = p;
	}
	*argc = n;
	return 0;
}

char *
proto_pred_set_text(const struct pred_set *set,
    const struct pred_scope *filter)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&text, &len)) == NULL)
		return NULL;
	if (pred_set_print(set, filter, fp) == -1) {
		fclose(fp);
		free(text);
		errno = EIO;
		return NULL;
	}
	if (fclose(fp) == EOF) {
		free(text);
		return NULL;
	}
	return text;
}

int
proto_pred_set_parse(struct pred_set *set, const char *text, char *err,
    size_t errlen)
{
	struct pred_set *tmp;
	struct pred p;
	const struct pred *q;
	const char *s = text, *nl;
	char line[PRED_LINE_MAX];
	size_t len;
	int lineno = 0, rc = -1;

	if ((tmp = pred_set_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (*s != '\0') {
		lineno++;
		nl = strchr(s, '\n');
		len = nl != NULL ? (size_t)(nl - s) : strlen(s);
		if (len >= sizeof(line)) {
			snprintf(err, errlen, "line %d: too long", lineno);
			goto out;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		s += len + (nl != NULL);
		if (line[strspn(line, " \t")] == '\0' ||
		    line[strspn(line, " \t")] == '#')
			continue;
		if (pred_parse(line, &p, err, errlen) == -1 ||
		    pred_set_add(tmp, &p, err, errlen) == -1)
			goto out;
	}
	pred_set_clear(set);
	for (q = pred_set_first(tmp); q != NULL; q = pred_set_next(q))
		if (pred_set_add(set, q, err, errlen) == -1)
			goto out;
	rc = 0;
 out:
	pred_set_free(tmp);
	return rc;
}

int
proto_pred_req_cmd(const struct msg_in *in, struct proto_pred_req *q,
    struct pred_cmd *cmd, char *why, size_t whysz)
{
	char words[PROTO_PRED_CMD_MAX], *argv[PRED_ARGS_MAX];
	int argc;

	why[0] = '\0';
	if (proto_pred_req_dec(q, in->mi_data, in->mi_len) == -1)
		return -1;
	if (proto_pred_split(q->pq_cmd, words, sizeof(words), argv,
	    PRED_ARGS_MAX, &argc) == -1) {
		snprintf(why, whysz, "too many words");
		return -1;
	}
	if (pred_cmd_parse(argc, argv, cmd, why, whysz) == -1)
		return -1;
	if (cmd->cm_action != q->pq_action) {
		snprintf(why, whysz, "the command does not say what the "
		    "request does");
		return -1;
	}
	return 0;
}

/* Can the set after an add be kept?  0, or -1 with why. */
static int
room_for(const struct pred_set *set, const struct pred_cmd *cmd, char *why,
    size_t whysz)
{
	const char *user = cmd->cm_pred.pr_scope.ps_user;
	const struct pred *p;
	size_t mine = 0, len;
	char *text;

	if (cmd->cm_action != PRED_A_ADD)
		return 0;
	for (p = pred_set_first(set); *user != '\0' && p != NULL;
	    p = pred_set_next(p))
		if (strcmp(p->pr_scope.ps_user, user) == 0)
			mine++;
	if (mine > PROTO_PRED_USER_MAX) {
		snprintf(why, whysz, "%s keeps %d predicates already, the most "
		    "one user may", user, PROTO_PRED_USER_MAX);
		return -1;
	}
	if ((text = proto_pred_set_text(set, NULL)) == NULL) {
		snprintf(why, whysz, "out of memory");
		return -1;
	}
	len = strlen(text);
	free(text);
	if (len > PROTO_PRED_TEXT_MAX) {
		snprintf(why, whysz, "the predicates would be too large to "
		    "send to the nodes (%zu bytes, at most %d)", len,
		    PROTO_PRED_TEXT_MAX);
		return -1;
	}
	return 0;
}

int
proto_pred_set_change(struct pred_set **setp, const char *path,
    const struct pred_cmd *cmd, char *why, size_t whysz)
{
	struct pred_set *copy;
	char *text;
	int rc = -1;

	if ((copy = pred_set_new()) == NULL ||
	    (text = proto_pred_set_text(*setp, NULL)) == NULL) {
		pred_set_free(copy);
		snprintf(why, whysz, "out of memory");
		return -1;
	}
	if (proto_pred_set_parse(copy, text, why, whysz) == 0 &&
	    pred_set_apply(copy, cmd, why, whysz) == 0 &&
	    room_for(copy, cmd, why, whysz) == 0) {
		if (pred_set_save(copy, path) == -1)
			snprintf(why, whysz, "could not store the predicates "
			    "in %s: %s", path, strerror(errno));
		else {
			pred_set_free(*setp);
			*setp = copy;
			copy = NULL;
			rc = 0;
		}
	}
	free(text);
	pred_set_free(copy);
	return rc;
}
