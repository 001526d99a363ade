/*
 * cn_tree — the clearinghouse's accounting of work units: who runs
 * what, what is redone when a worker is lost, and which results are
 * final.  Every result counts exactly once: a unit counts only when it
 * and all its ancestors are done, and a lost attempt's exports are
 * cancelled before the unit is redone (see cn.h).
 */
#include "cn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int
cn_tree_init(struct cn_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->t_cap = 64;
	if ((t->t_units = calloc(t->t_cap, sizeof(*t->t_units))) == NULL)
		return -1;
	t->t_n = 1;			/* id 0 is never used */
	return 0;
}

void
cn_tree_fini(struct cn_tree *t)
{
	uint32_t i;

	for (i = 0; i < t->t_n; i++) {
		free(t->t_units[i].u_records);
		free(t->t_units[i].u_kids);
	}
	free(t->t_units);
	memset(t, 0, sizeof(*t));
}

struct cn_unit *
cn_tree_unit(struct cn_tree *t, uint32_t id)
{
	return id == 0 || id >= t->t_n ? NULL : &t->t_units[id];
}

/* A new unit's id; pointers into t_units are invalid afterwards. */
static uint32_t
unit_new(struct cn_tree *t)
{
	struct cn_unit *nu;
	uint32_t cap;

	if (t->t_n == UINT32_MAX)
		return 0;
	if (t->t_n == t->t_cap) {
		cap = t->t_cap > UINT32_MAX / 2 ? UINT32_MAX : t->t_cap * 2;
		if ((nu = reallocarray(t->t_units, cap, sizeof(*nu))) == NULL)
			return 0;
		memset(nu + t->t_cap, 0, (cap - t->t_cap) * sizeof(*nu));
		t->t_units = nu;
		t->t_cap = cap;
	}
	t->t_open++;
	return t->t_n++;
}

static void
pool_push(struct cn_tree *t, uint32_t id)
{
	t->t_units[id].u_pool_next = 0;
	if (t->t_pool_tail != 0)
		t->t_units[t->t_pool_tail].u_pool_next = id;
	else
		t->t_pool_head = id;
	t->t_pool_tail = id;
}

static int
kid_add(struct cn_unit *u, uint32_t kid)
{
	uint32_t *nk, cap;

	if (u->u_nkids == u->u_capkids) {
		cap = u->u_capkids ? u->u_capkids * 2 : 4;
		if ((nk = reallocarray(u->u_kids, cap, sizeof(*nk))) == NULL)
			return -1;
		u->u_kids = nk;
		u->u_capkids = cap;
	}
	u->u_kids[u->u_nkids++] = kid;
	return 0;
}

int
cn_tree_root(struct cn_tree *t, uint32_t w, const struct cn_frame *f)
{
	struct cn_unit *u;
	uint32_t id;

	if (t->t_n != 1 || (id = unit_new(t)) == 0)
		return -1;
	u = &t->t_units[id];
	u->u_state = CN_U_RUNNING;
	u->u_attempt = 1;
	u->u_worker = u->u_creator = w;
	u->u_frame = *f;
	return 0;
}

int
cn_tree_recover(struct cn_tree *t, int64_t sum, const struct cn_frame *f,
    uint32_t n)
{
	struct cn_unit *u;
	uint32_t id, i;

	if (t->t_n != 1 || (id = unit_new(t)) == 0)
		return -1;
	u = &t->t_units[id];
	u->u_state = CN_U_FINAL;	/* what counted before the crash */
	u->u_attempt = 1;
	u->u_sum = sum;
	t->t_sum = sum;
	t->t_open--;
	for (i = 0; i < n; i++) {
		if ((id = unit_new(t)) == 0)
			return -1;
		u = &t->t_units[id];
		u->u_state = CN_U_POOL;
		u->u_parent = 1;
		u->u_parent_attempt = 1;
		u->u_attempt = 1;
		u->u_frame = f[i];
		if (kid_add(&t->t_units[1], id) == -1)
			return -1;
		t->t_units[1].u_exports++;
		pool_push(t, id);
	}
	return 0;
}

/* The unit w may still report on, or NULL. */
static struct cn_unit *
running(struct cn_tree *t, uint32_t w, uint32_t unit, uint32_t attempt)
{
	struct cn_unit *u = cn_tree_unit(t, unit);

	if (u == NULL || u->u_state != CN_U_RUNNING ||
	    u->u_attempt != attempt || u->u_worker != w)
		return NULL;
	return u;
}

int
cn_tree_export(struct cn_tree *t, uint32_t w, uint32_t unit,
    uint32_t attempt, const struct cn_frame *f, uint32_t n)
{
	struct cn_unit *k;
	uint32_t i, id;

	if (running(t, w, unit, attempt) == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		if ((id = unit_new(t)) == 0)
			return -1;
		k = &t->t_units[id];
		k->u_state = CN_U_POOL;
		k->u_parent = unit;
		k->u_parent_attempt = attempt;
		k->u_attempt = 1;
		k->u_creator = w;
		k->u_frame = f[i];
		if (kid_add(&t->t_units[unit], id) == -1)
			return -1;
		t->t_units[unit].u_exports++;
		pool_push(t, id);
	}
	return 0;
}

/* A unit taken from the pool runs on worker w; id. */
static uint32_t
run_on(struct cn_tree *t, uint32_t id, uint32_t w)
{
	struct cn_unit *u = &t->t_units[id];

	u->u_state = CN_U_RUNNING;
	u->u_worker = w;
	if (w != u->u_creator)
		t->t_migrated++;
	return id;
}

uint32_t
cn_tree_assign(struct cn_tree *t, uint32_t w)
{
	struct cn_unit *u;
	uint32_t id;

	while ((id = t->t_pool_head) != 0) {
		u = &t->t_units[id];
		t->t_pool_head = u->u_pool_next;
		if (t->t_pool_head == 0)
			t->t_pool_tail = 0;
		if (u->u_state != CN_U_POOL)
			continue;	/* cancelled while waiting */
		return run_on(t, id, w);
	}
	return 0;
}

uint32_t
cn_tree_assign_near(struct cn_tree *t, uint32_t w,
    int (*near)(uint32_t creator, void *), void *arg)
{
	struct cn_unit *u;
	uint32_t id, prev = 0, next, looked = 0;

	for (id = t->t_pool_head; id != 0 && looked < CN_POOL_NEAR;
	    id = next) {
		u = &t->t_units[id];
		next = u->u_pool_next;
		if (u->u_state == CN_U_POOL && !near(u->u_creator, arg)) {
			looked++;
			prev = id;
			continue;
		}
		/* Ours, or cancelled while waiting: out of the pool. */
		if (prev != 0)
			t->t_units[prev].u_pool_next = next;
		else
			t->t_pool_head = next;
		if (t->t_pool_tail == id)
			t->t_pool_tail = prev;
		if (u->u_state != CN_U_POOL)
			continue;
		return run_on(t, id, w);
	}
	return 0;
}

/* Makes id final, then every done unit under it; an explicit stack. */
static int
finalize(struct cn_tree *t, uint32_t id)
{
	uint32_t *stack, n = 0, cap = t->t_n, i;
	struct cn_unit *u, *k;

	if ((stack = calloc(cap, sizeof(*stack))) == NULL)
		return -1;
	stack[n++] = id;
	while (n > 0) {
		id = stack[--n];
		u = &t->t_units[id];
		u->u_state = CN_U_FINAL;
		t->t_open--;
		t->t_sum += u->u_sum;
		if (u->u_nrecords > 0 && t->t_on_final != NULL)
			t->t_on_final(t, id, t->t_arg);
		for (i = 0; i < u->u_nkids; i++) {
			k = &t->t_units[u->u_kids[i]];
			if (k->u_state == CN_U_DONE &&
			    k->u_parent_attempt == u->u_attempt && n < cap)
				stack[n++] = u->u_kids[i];
		}
	}
	free(stack);
	return 0;
}

int
cn_tree_done(struct cn_tree *t, uint32_t w, uint32_t unit,
    uint32_t attempt, uint32_t nexports, int64_t sum,
    const uint8_t *records, size_t len)
{
	struct cn_unit *u, *p;

	if ((u = running(t, w, unit, attempt)) == NULL)
		return 1;
	if (u->u_exports < nexports)
		return 2;	/* an export is still on its way */
	if (u->u_exports > nexports)
		return 1;	/* cannot be: drop it */
	if (len > 0) {
		if ((u->u_records = malloc(len)) == NULL)
			return -1;
		memcpy(u->u_records, records, len);
		u->u_nrecords = len;
	}
	u->u_sum = sum;
	u->u_state = CN_U_DONE;
	u->u_worker = 0;
	p = cn_tree_unit(t, u->u_parent);
	if (p == NULL || p->u_state == CN_U_FINAL)
		return finalize(t, unit);
	return 0;
}

/* Cancels id and everything under it; an explicit stack. */
static int
cancel(struct cn_tree *t, uint32_t id)
{
	uint32_t *stack, n = 0, cap = t->t_n, i;
	struct cn_unit *u;

	if ((stack = calloc(cap, sizeof(*stack))) == NULL)
		return -1;
	stack[n++] = id;
	while (n > 0) {
		u = &t->t_units[stack[--n]];
		if (u->u_state == CN_U_CANCELLED || u->u_state == CN_U_FINAL)
			continue;
		u->u_state = CN_U_CANCELLED;
		u->u_worker = 0;
		t->t_open--;
		t->t_cancelled++;
		free(u->u_records);
		u->u_records = NULL;
		u->u_nrecords = 0;
		for (i = 0; i < u->u_nkids && n < cap; i++)
			stack[n++] = u->u_kids[i];
	}
	free(stack);
	return 0;
}

int
cn_tree_lost(struct cn_tree *t, uint32_t w)
{
	struct cn_unit *u;
	uint32_t id, i;

	for (id = 1; id < t->t_n; id++) {
		u = &t->t_units[id];
		if (u->u_state != CN_U_RUNNING || u->u_worker != w)
			continue;
		for (i = 0; i < u->u_nkids; i++)
			if (t->t_units[u->u_kids[i]].u_parent_attempt ==
			    u->u_attempt && cancel(t, u->u_kids[i]) == -1)
				return -1;
		u = &t->t_units[id];
		u->u_attempt++;
		u->u_exports = 0;
		u->u_worker = 0;
		u->u_state = CN_U_POOL;
		t->t_reissued++;
		pool_push(t, id);
	}
	return 0;
}

int
cn_tree_finished(const struct cn_tree *t)
{
	return t->t_n > 1 && t->t_units[1].u_state == CN_U_FINAL &&
	    t->t_open == 0;
}

const char *
cn_tree_check(const struct cn_tree *t)
{
	const struct cn_unit *u, *p, *k;
	uint32_t id, i, open = 0, mine;
	int64_t sum = 0;

	for (id = 1; id < t->t_n; id++) {
		u = &t->t_units[id];
		if (u->u_state <= CN_U_UNDEF || u->u_state >= CN_U_MAX)
			return "a unit in no state";
		if (u->u_state != CN_U_FINAL && u->u_state != CN_U_CANCELLED)
			open++;
		if ((u->u_state == CN_U_RUNNING) != (u->u_worker != 0))
			return "a worker on a unit that does not run (E3)";
		if (u->u_parent >= id && id > 1)
			return "a kid older than its parent";
		p = u->u_parent ? &t->t_units[u->u_parent] : NULL;
		if (u->u_state == CN_U_FINAL) {
			sum += u->u_sum;
			if (p != NULL && (p->u_state != CN_U_FINAL ||
			    p->u_attempt != u->u_parent_attempt))
				return "final under a parent or attempt that "
				    "is not final (E1)";
		}
		mine = 0;
		for (i = 0; i < u->u_nkids; i++) {
			if (u->u_kids[i] <= id || u->u_kids[i] >= t->t_n)
				return "a kid list names a wrong unit";
			k = &t->t_units[u->u_kids[i]];
			if (k->u_parent != id)
				return "a kid of another parent";
			if (k->u_parent_attempt != u->u_attempt)
				continue;
			mine++;
			if ((u->u_state == CN_U_DONE ||
			    u->u_state == CN_U_FINAL) &&
			    k->u_state == CN_U_CANCELLED)
				return "a done unit's export is cancelled (E2)";
			if ((u->u_state == CN_U_RUNNING ||
			    u->u_state == CN_U_POOL) &&
			    k->u_state == CN_U_FINAL)
				return "final work under a unit not done (E3)";
		}
		if ((u->u_state == CN_U_DONE || u->u_state == CN_U_FINAL) &&
		    mine != u->u_exports)
			return "a done unit's exports do not match (E2)";
	}
	if (open != t->t_open)
		return "t_open is off (E4)";
	if (sum != t->t_sum)
		return "t_sum is not the sum of the final units (E4)";
	return NULL;
}
