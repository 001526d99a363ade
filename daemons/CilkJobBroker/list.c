/* CilkJobBroker: LIST and LIST_PAGE, the listings; see blist.h. */
#include <string.h>

#include "blist.h"
#include "broker_persist.h"
#include "log.h"
#include "mono.h"
#include "proto_page.h"

void
blist_init(struct blist *bl, struct broker *br, struct cookie_key *ck)
{
	memset(bl, 0, sizeof(*bl));
	bl->bl_br = br;
	bl->bl_cookie = ck;
}

static void
job_row(const struct broker_job *j, uint64_t wall, struct proto_job_row *r)
{
	memset(r, 0, sizeof(*r));
	r->jw_job = j->bj_id;
	strlcpy(r->jw_user, j->bj_user, sizeof(r->jw_user));
	r->jw_addr = j->bj_addr;
	r->jw_nodes = j->bj_count;
	r->jw_max = j->bj_max;
	r->jw_pri = j->bj_pri;
	r->jw_age = j->bj_start_ms && wall > j->bj_start_ms ?
	    (uint32_t)((wall - j->bj_start_ms) / 1000) : 0;
	strlcpy(r->jw_command, j->bj_command, sizeof(r->jw_command));
	r->jw_cpus = j->bj_cpus;
	r->jw_mem_mb = j->bj_mem_mb;
	r->jw_pending = j->bj_count > 0 ? PROTO_PENDING_NONE : j->bj_pending;
}

static void
node_row(const struct broker_node *n, double now, struct proto_node_row *r)
{
	const struct broker_slot *s;
	double seen;
	uint16_t i;
	uint8_t k;

	memset(r, 0, sizeof(*r));
	r->nw_node = n->bn_id;
	r->nw_addr = n->bn_addr;
	strlcpy(r->nw_host, n->bn_host, sizeof(r->nw_host));
	r->nw_state = broker_health_state(n);
	r->nw_job = n->bn_job;
	r->nw_load_milli = n->bn_load_milli;
	r->nw_idle = n->bn_idle;
	r->nw_users = n->bn_users;
	/* A reloaded node: with its silence before our restart. */
	seen = broker_node_seen_age(n, now) * 1000;
	r->nw_seen_ms = seen < UINT32_MAX ? (uint32_t)seen : UINT32_MAX;
	r->nw_pairs = n->bn_pairs;
	r->nw_switches = n->bn_switches;
	r->nw_total = n->bn_total;
	r->nw_lent = n->bn_lent;
	r->nw_mem_mb = n->bn_mem_mb;
	r->nw_unenforced = n->bn_unenforced;
	for (i = 0; i < n->bn_nslots; i++) {
		s = &n->bn_slots[i];
		if (s->bs_state == PROTO_NS_RUNNING ||
		    s->bs_state == PROTO_NS_SUSPENDED)
			r->nw_running++;
		if (s->bs_job == 0 || (s->bs_state != PROTO_NS_RUNNING &&
		    s->bs_state != PROTO_NS_SUSPENDED &&
		    s->bs_state != PROTO_NS_SWITCHING &&
		    s->bs_state != PROTO_NS_STOPPING))
			continue;
		for (k = 0; k < r->nw_njobs && r->nw_jobs[k] != s->bs_job; k++)
			;
		if (k == r->nw_njobs && k < PROTO_NODE_JOBS_MAX)
			r->nw_jobs[r->nw_njobs++] = s->bs_job;
	}
}

/* A node down: what the broker knew of it, and its silence as SEEN. */
static void
down_row(const struct broker_hold *x, double now, struct proto_node_row *r)
{
	double seen = now - x->bh_at;
	uint64_t wall = now_real_ms();

	memset(r, 0, sizeof(*r));
	r->nw_node = x->bh_node;
	r->nw_addr = x->bh_addr;
	strlcpy(r->nw_host, x->bh_host, sizeof(r->nw_host));
	r->nw_state = PROTO_NS_DOWN;
	if (wall > x->bh_since_ms)
		seen = (double)(wall - x->bh_since_ms) / 1000;
	r->nw_seen_ms = seen * 1000 >= UINT32_MAX ? UINT32_MAX :
	    (uint32_t)(seen * 1000);
}

void
blist_on_list(struct blist *bl, struct msg_ep *ep, const struct msg_in *in)
{
	static struct proto_job_row jrows[PROTO_ROWS_MAX];
	static struct proto_node_row nrows[PROTO_ROWS_MAX];
	struct proto_list l;
	const struct broker_hold *x;
	struct broker_job *j;
	struct broker_node *n;
	double now = now_mono();
	uint32_t k = 0, i;
	size_t len;

	if (proto_list_dec(&l, in->mi_data, in->mi_len) == -1)
		return;
	/*
	 * A user's signed request may come from a forged address: the
	 * answer, up to 100 times larger, goes only where a cookie sent
	 * there came back from.  Daemons and administrators with the
	 * cluster key are trusted with it as they are with everything.
	 */
	if (!cookie_proved(bl->bl_cookie, ep, in, now, l.li_has_cookie,
	    l.li_cookie))
		return;
	/* What does not fit in one message is left out, oldest kept. */
	if (l.li_what == PROTO_LIST_JOBS) {
		broker_recount(bl->bl_br, now);
		TAILQ_FOREACH(j, &bl->bl_br->br_jobs, bj_entry) {
			if (k == PROTO_ROWS_MAX)
				break;
			job_row(j, now_real_ms(), &jrows[k++]);
		}
		for (i = 0; bl->bl_waits != NULL &&
		    i < bl->bl_waits->bw_n && k < PROTO_ROWS_MAX; i++)
			broker_wait_row(&bl->bl_waits->bw_w[i], now,
			    &jrows[k++]);
		while ((len = proto_jobs_enc(jrows, k, bl->bl_buf,
		    sizeof(bl->bl_buf))) == 0 && k > 0)
			k--;
		if (len > 0)
			(void)msg_ep_reply(ep, in, PROTO_H_JOBS, bl->bl_buf,
			    len);
		return;
	}
	TAILQ_FOREACH(n, &bl->bl_br->br_nodes, bn_entry) {
		if (k == PROTO_ROWS_MAX)
			break;
		node_row(n, now, &nrows[k++]);
	}
	for (x = bl->bl_health != NULL ? broker_health_first_down(
	    bl->bl_health) : NULL; x != NULL && k < PROTO_ROWS_MAX;
	    x = broker_health_next_down(x))
		down_row(x, now, &nrows[k++]);
	while ((len = proto_nodes_enc(nrows, k, bl->bl_buf,
	    sizeof(bl->bl_buf))) == 0 && k > 0)
		k--;
	if (len > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_NODES, bl->bl_buf, len);
}

static int
node_wanted(const struct proto_list_page *q, const struct broker_node *n)
{
	return (q->lp_state == 0 || q->lp_state == broker_health_state(n)) &&
	    (q->lp_job == 0 || broker_node_runs(n, q->lp_job));
}

/* The node at place from (0: the head), from where the last page ended
 * if nothing joined or left since. */
static struct broker_node *
node_at(struct blist *bl, uint32_t from)
{
	struct broker_node *n;
	uint32_t i;

	if (from != 0 && bl->bl_members == bl->bl_br->br_members &&
	    bl->bl_at == from)
		return bl->bl_node;
	for (n = TAILQ_FIRST(&bl->bl_br->br_nodes), i = 0; n != NULL &&
	    i < from; n = TAILQ_NEXT(n, bn_entry), i++)
		;
	return n;
}

/*
 * The down nodes at places br_nnodes on, into rows after *k; the place
 * to go on from, 0 at the end.  scanned: places looked at already.
 */
static uint32_t
down_page(struct blist *bl, const struct proto_list_page *q, double now,
    struct proto_node_row *rows, uint32_t *k, uint32_t scanned)
{
	const struct broker_hold *x;
	uint32_t at = bl->bl_br->br_nnodes, from;

	if (bl->bl_health == NULL || (q->lp_state != 0 &&
	    q->lp_state != PROTO_NS_DOWN) || q->lp_job != 0)
		return 0;
	from = q->lp_from > at ? q->lp_from : at;
	for (x = broker_health_first_down(bl->bl_health); x != NULL &&
	    at < from; x = broker_health_next_down(x))
		at++;
	for (; x != NULL && *k < PROTO_PAGE_ROWS &&
	    scanned < PROTO_PAGE_SCAN; x = broker_health_next_down(x)) {
		scanned++;
		at++;
		down_row(x, now, &rows[(*k)++]);
	}
	return x == NULL ? 0 : at;
}

/*
 * The job managers waiting for --after at places br_njobs on, into rows
 * after *k; the place to go on from, 0 at the end.
 */
static uint32_t
wait_page(struct blist *bl, const struct proto_list_page *q, double now,
    struct proto_job_row *rows, uint32_t *k, uint32_t scanned)
{
	uint32_t at = bl->bl_br->br_njobs, i;

	if (bl->bl_waits == NULL || q->lp_job != 0)
		return 0;
	i = q->lp_from > at ? q->lp_from - at : 0;
	for (; i < bl->bl_waits->bw_n && *k < PROTO_PAGE_JOB_ROWS &&
	    scanned < PROTO_PAGE_SCAN; i++) {
		scanned++;
		broker_wait_row(&bl->bl_waits->bw_w[i], now, &rows[(*k)++]);
	}
	return i >= bl->bl_waits->bw_n ? 0 : at + i;
}

void
blist_on_page(struct blist *bl, struct msg_ep *ep, const struct msg_in *in)
{
	static struct proto_job_row jrows[PROTO_PAGE_JOB_ROWS];
	static struct proto_node_row nrows[PROTO_PAGE_ROWS];
	struct proto_list_page q;
	struct broker_job *j;
	struct broker_node *n;
	double now = now_mono();
	uint64_t wall = now_real_ms();
	uint32_t k = 0, scanned = 0, next;
	size_t len;
	uint16_t h;

	if (proto_list_page_dec(&q, in->mi_data, in->mi_len) == -1) {
		log_debug("list page: malformed, from %s", in->mi_name);
		return;
	}
	/* As for LIST: a large answer only where a cookie came back. */
	if (!cookie_proved(bl->bl_cookie, ep, in, now, q.lp_has_cookie,
	    q.lp_cookie))
		return;
	if (q.lp_what == PROTO_LIST_JOBS) {
		if (q.lp_from == 0)
			broker_recount(bl->bl_br, now);
		for (j = TAILQ_FIRST(&bl->bl_br->br_jobs); j != NULL &&
		    scanned < q.lp_from; j = TAILQ_NEXT(j, bj_entry))
			scanned++;
		scanned = 0;
		for (; j != NULL && k < PROTO_PAGE_JOB_ROWS &&
		    scanned < PROTO_PAGE_SCAN; j = TAILQ_NEXT(j, bj_entry)) {
			scanned++;
			if (q.lp_job == 0 || q.lp_job == j->bj_id)
				job_row(j, wall, &jrows[k++]);
		}
		next = j == NULL ? 0 : q.lp_from + scanned;
		/* The jobs done: those waiting for --after, after them. */
		if (j == NULL)
			next = wait_page(bl, &q, now, jrows, &k, scanned);
		h = PROTO_H_JOBS_PAGE;
		len = proto_page_enc(q.lp_what, q.lp_from, next, jrows, k,
		    bl->bl_buf, sizeof(bl->bl_buf));
	} else {
		n = q.lp_from < bl->bl_br->br_nnodes ?
		    node_at(bl, q.lp_from) : NULL;
		for (; n != NULL &&
		    k < PROTO_PAGE_ROWS && scanned < PROTO_PAGE_SCAN;
		    n = TAILQ_NEXT(n, bn_entry)) {
			scanned++;
			if (node_wanted(&q, n))
				node_row(n, now, &nrows[k++]);
		}
		next = n == NULL ? 0 : q.lp_from + scanned;
		bl->bl_members = bl->bl_br->br_members;
		bl->bl_at = next;
		bl->bl_node = n;
		/* The registered nodes done: those down, after them. */
		if (n == NULL)
			next = down_page(bl, &q, now, nrows, &k, scanned);
		h = PROTO_H_NODES_PAGE;
		len = proto_page_enc(q.lp_what, q.lp_from, next, nrows, k,
		    bl->bl_buf, sizeof(bl->bl_buf));
	}
	if (len == 0) {
		log_warnx("list page: %u rows do not fit in a message", k);
		return;
	}
	(void)msg_ep_reply(ep, in, h, bl->bl_buf, len);
}
