/*
 * pred_eval — which predicates apply on this node, do they hold, and
 * why: the data behind "CilkPred node=H check".
 */
#include "pred.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEAS_CAP	1e15	/* measured values are clamped to this */

/* rc_user values: where idletime was measured. */
enum {
	SRC_INPUT = 0,		/* the node's input devices and ttys */
	SRC_USER,		/* the scope's user, on this node */
	SRC_CLUSTER		/* the scope's user, anywhere */
};

static int
user_is(const struct pred_user *u, const char *name)
{
	return strnlen(u->pu_name, sizeof(u->pu_name)) < sizeof(u->pu_name) &&
	    strcmp(u->pu_name, name) == 0;
}

static const struct pred_user *
find_user(const struct pred_user *u, size_t n, const char *name)
{
	size_t i;

	if (u == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (user_is(&u[i], name))
			return &u[i];
	return NULL;
}

static size_t
meas_nuser(const struct pred_meas *m)
{
	return m->pm_nuser > PRED_MEAS_USERS_MAX ? PRED_MEAS_USERS_MAX :
	    m->pm_nuser;
}

/* A measured double into integer units; 0 if not usable. */
static int
to_units(double v, double scale, int64_t *out)
{
	if (isnan(v))
		return 0;
	if (v < 0)
		v = 0;
	v *= scale;
	if (v > MEAS_CAP)
		v = MEAS_CAP;
	*out = scale == 1 ? (int64_t)floor(v) : (int64_t)llround(v);
	return 1;
}

/* Seconds since the scope user's last activity; 0 if unknown. */
static int
user_idle(const struct pred_ctx *x, const char *name, int cluster,
    int64_t *out)
{
	const struct pred_user *lu, *cu = NULL;
	double best = -1;

	lu = find_user(x->px_meas->pm_user, meas_nuser(x->px_meas), name);
	if (cluster)
		cu = find_user(x->px_cluster, x->px_ncluster, name);
	if (lu != NULL && !isnan(lu->pu_idle) && lu->pu_idle >= 0)
		best = lu->pu_idle;
	if (cu != NULL && !isnan(cu->pu_idle) && cu->pu_idle >= 0 &&
	    (best < 0 || cu->pu_idle < best))
		best = cu->pu_idle;
	if (best < 0)
		return 0;
	return to_units(best, 1, out);
}

static int
applies(const struct pred_scope *s, const struct pred_ctx *x)
{
	const struct pred_meas *m = x->px_meas;
	int local;

	local = s->ps_user[0] != '\0' &&
	    find_user(m->pm_user, meas_nuser(m), s->ps_user) != NULL;
	switch (s->ps_type) {
	case PRED_S_ALWAYS:
		return 1;
	case PRED_S_NODE:
		return pred_node_match(s->ps_node, x->px_node);
	case PRED_S_USER:
		return local;
	case PRED_S_USER_GLOBAL:
		return local || find_user(x->px_cluster, x->px_ncluster,
		    s->ps_user) != NULL;
	case PRED_S_USER_NODE:
		return local && pred_node_match(s->ps_node, x->px_node);
	default:
		return 0;
	}
}

static void
eval_cond(const struct pred_cond *c, const struct pred_scope *s,
    const struct pred_ctx *x, struct pred_rcond *r)
{
	const struct pred_meas *m = x->px_meas;
	const int64_t *th;
	int i;

	memset(r, 0, sizeof(*r));
	r->rc_type = c->pc_type;
	r->rc_hyst = c->pc_has_stay;
	r->rc_stay = c->pc_has_stay && x->px_idle;
	th = r->rc_stay ? c->pc_stay : c->pc_val;
	memcpy(r->rc_thresh, th, sizeof(r->rc_thresh));

	switch (c->pc_type) {
	case PRED_C_IDLETIME:
		if (s->ps_type == PRED_S_USER ||
		    s->ps_type == PRED_S_USER_NODE) {
			r->rc_user = SRC_USER;
			r->rc_known = user_idle(x, s->ps_user, 0,
			    &r->rc_value[0]);
		} else if (s->ps_type == PRED_S_USER_GLOBAL) {
			r->rc_user = SRC_CLUSTER;
			r->rc_known = user_idle(x, s->ps_user, 1,
			    &r->rc_value[0]);
		} else
			r->rc_known = to_units(m->pm_idle, 1,
			    &r->rc_value[0]);
		r->rc_pass = r->rc_known && r->rc_value[0] >= th[0];
		break;
	case PRED_C_USERS:
		r->rc_known = m->pm_nusers >= 0;
		r->rc_value[0] = m->pm_nusers;
		r->rc_pass = r->rc_known && r->rc_value[0] <= th[0];
		break;
	case PRED_C_LOAD:
		r->rc_known = 1;
		for (i = 0; i < 3; i++)
			if (isinf(m->pm_load[i]) || !to_units(m->pm_load[i],
			    1000, &r->rc_value[i]))
				r->rc_known = 0;
		r->rc_pass = r->rc_known;
		for (i = 0; i < 3; i++)
			if (r->rc_value[i] > th[i])
				r->rc_pass = 0;
		break;
	case PRED_C_MEM:
		r->rc_known = m->pm_mem >= 0 &&
		    to_units(m->pm_mem, 1, &r->rc_value[0]);
		r->rc_pass = r->rc_known && r->rc_value[0] >= th[0];
		break;
	case PRED_C_HOURS:
		r->rc_known = m->pm_tod >= 0 && m->pm_tod < 1440;
		r->rc_value[0] = r->rc_known ? m->pm_tod : 0;
		if (!r->rc_known)
			r->rc_pass = 0;
		else if (th[0] < th[1])
			r->rc_pass = r->rc_value[0] >= th[0] &&
			    r->rc_value[0] < th[1];
		else			/* wraps midnight */
			r->rc_pass = r->rc_value[0] >= th[0] ||
			    r->rc_value[0] < th[1];
		break;
	default:
		r->rc_known = 0;
		r->rc_pass = 0;
		break;
	}
}

static void
eval_pred(const struct pred *p, const struct pred_ctx *x, int dflt,
    struct pred_res *r)
{
	int t;

	memset(r, 0, sizeof(*r));
	r->rs_scope = p->pr_scope;
	r->rs_default = dflt;
	if (pred_format(p, r->rs_text, sizeof(r->rs_text)) == -1)
		strlcpy(r->rs_text, "?", sizeof(r->rs_text));
	r->rs_pass = 1;
	for (t = PRED_C_UNDEF + 1; t < PRED_C_MAX; t++) {
		if (p->pr_cond[t].pc_type != (enum pred_ctype)t)
			continue;
		eval_cond(&p->pr_cond[t], &p->pr_scope, x,
		    &r->rs_cond[r->rs_ncond]);
		if (!r->rs_cond[r->rs_ncond].rc_pass)
			r->rs_pass = 0;
		r->rs_ncond++;
	}
}

int
pred_eval(const struct pred_set *set, const struct pred_ctx *ctx,
    struct pred_eval *out)
{
	struct pred_ctx x;
	struct pred dflt;
	const struct pred *p;
	size_t n = 0;

	if (ctx == NULL || ctx->px_meas == NULL || out == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	x = *ctx;
	if (x.px_cluster == NULL)
		x.px_ncluster = 0;
	if (x.px_node == NULL)
		x.px_node = "";
	x.px_idle = ctx->px_idle != 0;

	if (pred_set_count(set) == 0) {
		if (pred_parse(PRED_DEFAULT_TEXT, &dflt, NULL, 0) == -1) {
			errno = EINVAL;
			return -1;
		}
		if ((out->pv_res = calloc(1, sizeof(*out->pv_res))) == NULL)
			return -1;
		out->pv_default = 1;
		out->pv_nres = 1;
		eval_pred(&dflt, &x, 1, &out->pv_res[0]);
		out->pv_idle = out->pv_res[0].rs_pass;
		return 0;
	}
	for (p = pred_set_first(set); p != NULL; p = pred_set_next(p))
		if (applies(&p->pr_scope, &x))
			n++;
	if (n > 0 && (out->pv_res = calloc(n, sizeof(*out->pv_res))) ==
	    NULL)
		return -1;
	out->pv_idle = 1;
	for (p = pred_set_first(set); p != NULL && out->pv_nres < n;
	    p = pred_set_next(p)) {
		if (!applies(&p->pr_scope, &x))
			continue;
		eval_pred(p, &x, 0, &out->pv_res[out->pv_nres]);
		if (!out->pv_res[out->pv_nres].rs_pass)
			out->pv_idle = 0;
		out->pv_nres++;
	}
	return 0;
}

uint32_t
pred_eval_keep(const struct pred_eval *ev, int *others)
{
	const struct pred_rcond *c;
	uint32_t keep = 0;
	int64_t over;
	size_t i, k;
	int a;

	*others = 1;
	for (i = 0; i < ev->pv_nres; i++)
		for (k = 0; k < ev->pv_res[i].rs_ncond; k++) {
			c = &ev->pv_res[i].rs_cond[k];
			if (c->rc_type != PRED_C_LOAD) {
				if (!c->rc_pass)
					*others = 0;
				continue;
			}
			if (!c->rc_known)
				return PRED_KEEP_ALL;
			for (a = 0; a < 3; a++) {
				over = c->rc_value[a] - c->rc_thresh[a];
				/* thousandths, rounded up to processors */
				if (over > 0 && (uint32_t)((over + 999) /
				    1000) > keep)
					keep = (uint32_t)((over + 999) / 1000);
			}
		}
	return keep;
}

void
pred_eval_fini(struct pred_eval *ev)
{
	if (ev == NULL)
		return;
	free(ev->pv_res);
	memset(ev, 0, sizeof(*ev));
}

/* The measured value (or thresholds) of one condition as text. */
static void
fmt_vals(enum pred_ctype t, const int64_t *v, int thresh, char *buf,
    size_t bufsz)
{
	char a[32], b[32], c[32];

	switch (t) {
	case PRED_C_LOAD:
		pred_decimal_format(v[0], PRED_LOAD_SCALE, a, sizeof(a));
		pred_decimal_format(v[1], PRED_LOAD_SCALE, b, sizeof(b));
		pred_decimal_format(v[2], PRED_LOAD_SCALE, c, sizeof(c));
		snprintf(buf, bufsz, "%s,%s,%s", a, b, c);
		break;
	case PRED_C_HOURS:
		if (thresh)
			snprintf(buf, bufsz, "%02d:%02d-%02d:%02d",
			    (int)(v[0] / 60), (int)(v[0] % 60),
			    (int)(v[1] / 60), (int)(v[1] % 60));
		else
			snprintf(buf, bufsz, "%02d:%02d", (int)(v[0] / 60),
			    (int)(v[0] % 60));
		break;
	default:
		snprintf(buf, bufsz, "%lld", (long long)v[0]);
		break;
	}
}

static const char *
cond_op(enum pred_ctype t)
{
	switch (t) {
	case PRED_C_IDLETIME:
	case PRED_C_MEM:
		return ">=";
	case PRED_C_HOURS:
		return "in";
	default:
		return "<=";
	}
}

static const char *
using_name(const struct pred_rcond *rc)
{
	if (!rc->rc_hyst)
		return "single";
	return rc->rc_stay ? "stay" : "become";
}

static const char *
source_name(const struct pred_rcond *rc)
{
	if (rc->rc_type != PRED_C_IDLETIME)
		return "node";
	switch (rc->rc_user) {
	case SRC_USER:
		return "user";
	case SRC_CLUSTER:
		return "cluster";
	default:
		return "input";
	}
}

int
pred_eval_print_text(const struct pred_eval *ev, FILE *fp)
{
	const struct pred_res *r;
	const struct pred_rcond *rc;
	char val[128], th[128], src[PRED_USER_MAX + 32], hy[32];
	size_t i, j, nfail = 0;

	for (i = 0; i < ev->pv_nres; i++)
		if (!ev->pv_res[i].rs_pass)
			nfail++;
	if (ev->pv_nres == 0)
		fprintf(fp, "idle: yes (no predicate applies)\n");
	else if (nfail == 0)
		fprintf(fp, "idle: yes (%zu applicable predicate%s, all "
		    "hold)\n", ev->pv_nres, ev->pv_nres == 1 ? "" : "s");
	else
		fprintf(fp, "idle: no (%zu of %zu applicable predicate%s "
		    "fail%s)\n", nfail, ev->pv_nres,
		    ev->pv_nres == 1 ? "" : "s", nfail == 1 ? "s" : "");
	for (i = 0; i < ev->pv_nres; i++) {
		r = &ev->pv_res[i];
		fprintf(fp, "%s%s: %s\n", r->rs_text,
		    r->rs_default ? " (built-in default)" : "",
		    r->rs_pass ? "pass" : "FAIL");
		for (j = 0; j < r->rs_ncond; j++) {
			rc = &r->rs_cond[j];
			if (rc->rc_known)
				fmt_vals(rc->rc_type, rc->rc_value, 0, val,
				    sizeof(val));
			else
				strlcpy(val, "unknown", sizeof(val));
			fmt_vals(rc->rc_type, rc->rc_thresh, 1, th,
			    sizeof(th));
			src[0] = hy[0] = '\0';
			if (rc->rc_user == SRC_USER)
				snprintf(src, sizeof(src), " (user %s here)",
				    r->rs_scope.ps_user);
			else if (rc->rc_user == SRC_CLUSTER)
				snprintf(src, sizeof(src), " (user %s "
				    "anywhere)", r->rs_scope.ps_user);
			else if (rc->rc_type == PRED_C_IDLETIME)
				snprintf(src, sizeof(src), " (input)");
			if (rc->rc_hyst)
				snprintf(hy, sizeof(hy), " (%s threshold)",
				    using_name(rc));
			fprintf(fp, "  %s%s: %s %s %s%s: %s\n",
			    pred_ctype_name(rc->rc_type), src, val,
			    cond_op(rc->rc_type), th, hy,
			    rc->rc_pass ? "pass" : "FAIL");
		}
	}
	return ferror(fp) ? -1 : 0;
}

static void
json_str(FILE *fp, const char *s)
{
	const unsigned char *p;

	fputc('"', fp);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(fp, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(fp, "\\u%04x", *p);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

static void
json_vals(FILE *fp, enum pred_ctype t, const int64_t *v, int thresh)
{
	char buf[128], n[32];
	int i;

	switch (t) {
	case PRED_C_LOAD:
		fputc('[', fp);
		for (i = 0; i < 3; i++) {
			pred_decimal_format(v[i], PRED_LOAD_SCALE, n,
			    sizeof(n));
			fprintf(fp, "%s%s", i ? ", " : "", n);
		}
		fputc(']', fp);
		break;
	case PRED_C_HOURS:
		fmt_vals(t, v, thresh, buf, sizeof(buf));
		json_str(fp, buf);
		break;
	default:
		fprintf(fp, "%lld", (long long)v[0]);
		break;
	}
}

int
pred_eval_print_json(const struct pred_eval *ev, FILE *fp)
{
	const struct pred_res *r;
	const struct pred_rcond *rc;
	char scope[PRED_TEXT_MAX];
	size_t i, j;

	fprintf(fp, "\"idle\": %s, \"default\": %s, \"predicates\": [",
	    ev->pv_idle ? "true" : "false", ev->pv_default ? "true" : "false");
	for (i = 0; i < ev->pv_nres; i++) {
		r = &ev->pv_res[i];
		if (pred_scope_format(&r->rs_scope, scope, sizeof(scope)) == -1)
			strlcpy(scope, "?", sizeof(scope));
		fprintf(fp, "%s{\"scope\": ", i ? ", " : "");
		json_str(fp, scope);
		fprintf(fp, ", \"predicate\": ");
		json_str(fp, r->rs_text);
		fprintf(fp, ", \"default\": %s, \"pass\": %s, "
		    "\"conditions\": [", r->rs_default ? "true" : "false",
		    r->rs_pass ? "true" : "false");
		for (j = 0; j < r->rs_ncond; j++) {
			rc = &r->rs_cond[j];
			fprintf(fp, "%s{\"condition\": \"%s\", \"source\": "
			    "\"%s\", \"value\": ", j ? ", " : "",
			    pred_ctype_name(rc->rc_type), source_name(rc));
			if (rc->rc_known)
				json_vals(fp, rc->rc_type, rc->rc_value, 0);
			else
				fprintf(fp, "null");
			fprintf(fp, ", \"threshold\": ");
			json_vals(fp, rc->rc_type, rc->rc_thresh, 1);
			fprintf(fp, ", \"using\": \"%s\", \"pass\": %s}",
			    using_name(rc), rc->rc_pass ? "true" : "false");
		}
		fprintf(fp, "]}");
	}
	fprintf(fp, "]");
	return ferror(fp) ? -1 : 0;
}
