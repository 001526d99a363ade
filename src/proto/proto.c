/* proto — payload codecs of the macroscheduler's messages. */
#include "proto.h"
#include "proto_stage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[PROTO_NS_MAX] = {
	[PROTO_NS_UNDEF] = "undefined",
	[PROTO_NS_BUSY] = "busy",
	[PROTO_NS_IDLE] = "idle",
	[PROTO_NS_RUNNING] = "running",
	[PROTO_NS_SWITCHING] = "switching",
	[PROTO_NS_STOPPING] = "stopping",
	[PROTO_NS_SUSPENDED] = "suspended",
	[PROTO_NS_DRAIN] = "drain",
	[PROTO_NS_DRAINED] = "drained",
	[PROTO_NS_DOWN] = "down",
};

const char *
proto_state_name(enum proto_node_state s)
{
	return s < PROTO_NS_MAX ? state_names[s] : "invalid";
}

enum proto_node_state
proto_state_from_name(const char *name)
{
	enum proto_node_state s;

	for (s = PROTO_NS_UNDEF + 1; s < PROTO_NS_MAX; s++)
		if (strcmp(name, state_names[s]) == 0)
			return s;
	return PROTO_NS_UNDEF;
}

void
proto_put_addr(struct wire_w *w, const struct msg_addr *a)
{
	wire_put_u8(w, a->ma_family);
	wire_put_bytes(w, a->ma_addr, sizeof(a->ma_addr));
	wire_put_u16(w, a->ma_port);
}

/* The address fields, whatever their family; -1 only when too short. */
static int
get_addr_raw(struct wire_r *r, struct msg_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (r->wr_left < 1 + sizeof(a->ma_addr) + 2)
		return -1;
	(void)wire_get_u8(r, &a->ma_family);
	(void)wire_get_bytes(r, a->ma_addr, sizeof(a->ma_addr));
	(void)wire_get_u16(r, &a->ma_port);
	return 0;
}

int
proto_get_addr(struct wire_r *r, struct msg_addr *a)
{
	if (get_addr_raw(r, a) == -1)
		return -1;
	return a->ma_family == 4 || a->ma_family == 6 ? 0 : -1;
}

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

size_t
proto_node_reg_enc(const struct proto_node_reg *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;
	uint16_t i;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->nr_node);
	wire_put_u64(&w, m->nr_boot);
	wire_put_str(&w, m->nr_host);
	wire_put_u8(&w, m->nr_state);
	wire_put_u32(&w, m->nr_job);
	wire_put_u32(&w, m->nr_load_milli);
	wire_put_u32(&w, m->nr_idle);
	wire_put_u16(&w, m->nr_users);
	wire_put_u32(&w, m->nr_pairs);
	wire_put_u32(&w, m->nr_switches);
	wire_put_u16(&w, m->nr_total);
	wire_put_u16(&w, m->nr_lent);
	wire_put_u32(&w, m->nr_mem_mb);
	wire_put_u16(&w, m->nr_nslots);
	for (i = 0; i < m->nr_nslots && i < PROTO_SLOTS_MAX; i++) {
		wire_put_u8(&w, m->nr_slots[i].ps_state);
		wire_put_u32(&w, m->nr_slots[i].ps_job);
	}
	wire_put_u8(&w, m->nr_unenforced);
	return finish(&w);
}

int
proto_node_reg_dec(struct proto_node_reg *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;
	uint16_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->nr_node) == -1 ||
	    wire_get_u64(&r, &m->nr_boot) == -1 ||
	    wire_get_str(&r, m->nr_host, sizeof(m->nr_host)) == -1 ||
	    wire_get_u8(&r, &m->nr_state) == -1 ||
	    wire_get_u32(&r, &m->nr_job) == -1 ||
	    wire_get_u32(&r, &m->nr_load_milli) == -1 ||
	    wire_get_u32(&r, &m->nr_idle) == -1 ||
	    wire_get_u16(&r, &m->nr_users) == -1 ||
	    wire_get_u32(&r, &m->nr_pairs) == -1 ||
	    wire_get_u32(&r, &m->nr_switches) == -1 ||
	    wire_get_u16(&r, &m->nr_total) == -1 ||
	    wire_get_u16(&r, &m->nr_lent) == -1 ||
	    wire_get_u32(&r, &m->nr_mem_mb) == -1 ||
	    m->nr_mem_mb > PROTO_MEM_MB_MAX ||
	    wire_get_u16(&r, &m->nr_nslots) == -1 ||
	    m->nr_total > PROTO_SLOTS_MAX || m->nr_lent > m->nr_total ||
	    m->nr_nslots > m->nr_total)
		return -1;
	for (i = 0; i < m->nr_nslots; i++)
		if (wire_get_u8(&r, &m->nr_slots[i].ps_state) == -1 ||
		    m->nr_slots[i].ps_state == PROTO_NS_UNDEF ||
		    m->nr_slots[i].ps_state >= PROTO_NS_NODE_MAX ||
		    wire_get_u32(&r, &m->nr_slots[i].ps_job) == -1)
			return -1;
	if (wire_get_u8(&r, &m->nr_unenforced) == -1 ||
	    (m->nr_unenforced & ~PROTO_LIMIT_ALL) != 0 ||
	    wire_get_end(&r) == -1)
		return -1;
	if (m->nr_state == PROTO_NS_UNDEF ||
	    m->nr_state >= PROTO_NS_NODE_MAX)
		return -1;
	return 0;
}

size_t
proto_ack_enc(const struct proto_ack *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->ak_id);
	wire_put_u32(&w, m->ak_interval_ms);
	return finish(&w);
}

int
proto_ack_dec(struct proto_ack *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->ak_id) == -1 ||
	    wire_get_u32(&r, &m->ak_interval_ms) == -1 ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_job_reg_enc(const struct proto_job_reg *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->jr_job);
	wire_put_u64(&w, m->jr_boot);
	wire_put_u32(&w, m->jr_max);
	wire_put_u32(&w, m->jr_pri);
	wire_put_u64(&w, m->jr_start_ms);
	wire_put_str(&w, m->jr_command);
	wire_put_u16(&w, m->jr_cpus);
	wire_put_u32(&w, m->jr_mem_mb);
	wire_put_u8(&w, m->jr_has_cookie ? 1 : 0);
	if (m->jr_has_cookie)
		wire_put_bytes(&w, m->jr_cookie, PROTO_COOKIE_LEN);
	return finish(&w);
}

int
proto_job_reg_dec(struct proto_job_reg *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->jr_job) == -1 ||
	    wire_get_u64(&r, &m->jr_boot) == -1 ||
	    wire_get_u32(&r, &m->jr_max) == -1 ||
	    wire_get_u32(&r, &m->jr_pri) == -1 ||
	    wire_get_u64(&r, &m->jr_start_ms) == -1 ||
	    wire_get_str(&r, m->jr_command, sizeof(m->jr_command)) == -1 ||
	    wire_get_u16(&r, &m->jr_cpus) == -1 ||
	    m->jr_cpus > PROTO_SLOTS_MAX ||
	    wire_get_u32(&r, &m->jr_mem_mb) == -1 ||
	    m->jr_mem_mb > PROTO_MEM_MB_MAX ||
	    wire_get_u8(&r, &m->jr_has_cookie) == -1 ||
	    m->jr_has_cookie > 1 || (m->jr_has_cookie &&
	    wire_get_bytes(&r, m->jr_cookie, PROTO_COOKIE_LEN) == -1) ||
	    wire_get_end(&r) == -1 || m->jr_pri == 0)
		return -1;
	return 0;
}

size_t
proto_job_unreg_enc(const struct proto_job_unreg *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->ju_job);
	return finish(&w);
}

int
proto_job_unreg_dec(struct proto_job_unreg *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	wire_r_init(&r, buf, len);
	/* Job 0: what a job manager that gave up registered (broker.h). */
	if (wire_get_u32(&r, &m->ju_job) == -1 || wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_list_enc(const struct proto_list *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->li_what);
	wire_put_u8(&w, m->li_has_cookie ? 1 : 0);
	if (m->li_has_cookie)
		wire_put_bytes(&w, m->li_cookie, PROTO_COOKIE_LEN);
	return finish(&w);
}

int
proto_list_dec(struct proto_list *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->li_what) == -1 ||
	    wire_get_u8(&r, &m->li_has_cookie) == -1 ||
	    m->li_what == PROTO_LIST_UNDEF || m->li_what >= PROTO_LIST_MAX ||
	    m->li_has_cookie > 1 || (m->li_has_cookie &&
	    wire_get_bytes(&r, m->li_cookie, PROTO_COOKIE_LEN) == -1))
		return -1;
	return wire_get_end(&r);
}

size_t
proto_cookie_enc(const struct proto_cookie *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_bytes(&w, m->co_cookie, PROTO_COOKIE_LEN);
	return finish(&w);
}

int
proto_cookie_dec(struct proto_cookie *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	wire_r_init(&r, buf, len);
	if (wire_get_bytes(&r, m->co_cookie, PROTO_COOKIE_LEN) == -1)
		return -1;
	return wire_get_end(&r);
}

size_t
proto_jobs_enc(const struct proto_job_row *rows, uint32_t n, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;
	uint32_t i;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, n);
	for (i = 0; i < n; i++) {
		wire_put_u32(&w, rows[i].jw_job);
		wire_put_str(&w, rows[i].jw_user);
		proto_put_addr(&w, &rows[i].jw_addr);
		wire_put_u32(&w, rows[i].jw_nodes);
		wire_put_u32(&w, rows[i].jw_max);
		wire_put_u32(&w, rows[i].jw_pri);
		wire_put_u32(&w, rows[i].jw_age);
		wire_put_str(&w, rows[i].jw_command);
		wire_put_u16(&w, rows[i].jw_cpus);
		wire_put_u32(&w, rows[i].jw_mem_mb);
		wire_put_u8(&w, rows[i].jw_pending);
	}
	return finish(&w);
}

/* Reads a row count and allocates that many rows, within reason. */
static void *
rows_alloc(struct wire_r *r, uint32_t *n, size_t size)
{
	if (wire_get_u32(r, n) == -1 || *n > PROTO_ROWS_MAX)
		return NULL;
	return calloc(*n ? *n : 1, size);
}

int
proto_jobs_dec(struct proto_job_row **out, uint32_t *n, const uint8_t *buf,
    size_t len)
{
	struct proto_job_row *rows, *j;
	struct wire_r r;
	uint32_t i;

	*out = NULL;
	wire_r_init(&r, buf, len);
	if ((rows = rows_alloc(&r, n, sizeof(*rows))) == NULL)
		return -1;
	for (i = 0; i < *n; i++) {
		j = &rows[i];
		if (wire_get_u32(&r, &j->jw_job) == -1 ||
		    wire_get_str(&r, j->jw_user, sizeof(j->jw_user)) == -1 ||
		    proto_get_addr(&r, &j->jw_addr) == -1 ||
		    wire_get_u32(&r, &j->jw_nodes) == -1 ||
		    wire_get_u32(&r, &j->jw_max) == -1 ||
		    wire_get_u32(&r, &j->jw_pri) == -1 ||
		    wire_get_u32(&r, &j->jw_age) == -1 ||
		    wire_get_str(&r, j->jw_command,
		    sizeof(j->jw_command)) == -1 ||
		    wire_get_u16(&r, &j->jw_cpus) == -1 ||
		    j->jw_cpus > PROTO_SLOTS_MAX ||
		    wire_get_u32(&r, &j->jw_mem_mb) == -1 ||
		    j->jw_mem_mb > PROTO_MEM_MB_MAX ||
		    wire_get_u8(&r, &j->jw_pending) == -1 ||
		    j->jw_pending >= PROTO_PENDING_MAX)
			goto bad;
	}
	if (wire_get_end(&r) == -1)
		goto bad;
	*out = rows;
	return 0;
 bad:
	free(rows);
	return -1;
}

size_t
proto_nodes_enc(const struct proto_node_row *rows, uint32_t n, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;
	uint32_t i, k;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, n);
	for (i = 0; i < n; i++) {
		wire_put_u32(&w, rows[i].nw_node);
		proto_put_addr(&w, &rows[i].nw_addr);
		wire_put_str(&w, rows[i].nw_host);
		wire_put_u8(&w, rows[i].nw_state);
		wire_put_u32(&w, rows[i].nw_job);
		wire_put_u32(&w, rows[i].nw_load_milli);
		wire_put_u32(&w, rows[i].nw_idle);
		wire_put_u16(&w, rows[i].nw_users);
		wire_put_u32(&w, rows[i].nw_seen_ms);
		wire_put_u32(&w, rows[i].nw_pairs);
		wire_put_u32(&w, rows[i].nw_switches);
		wire_put_u16(&w, rows[i].nw_running);
		wire_put_u16(&w, rows[i].nw_lent);
		wire_put_u16(&w, rows[i].nw_total);
		wire_put_u32(&w, rows[i].nw_mem_mb);
		wire_put_u8(&w, rows[i].nw_njobs);
		for (k = 0; k < rows[i].nw_njobs &&
		    k < PROTO_NODE_JOBS_MAX; k++)
			wire_put_u32(&w, rows[i].nw_jobs[k]);
		wire_put_u8(&w, rows[i].nw_unenforced);
	}
	return finish(&w);
}

int
proto_nodes_dec(struct proto_node_row **out, uint32_t *n, const uint8_t *buf,
    size_t len)
{
	struct proto_node_row *rows, *x;
	struct wire_r r;
	uint32_t i, k;

	*out = NULL;
	wire_r_init(&r, buf, len);
	if ((rows = rows_alloc(&r, n, sizeof(*rows))) == NULL)
		return -1;
	for (i = 0; i < *n; i++) {
		x = &rows[i];
		if (wire_get_u32(&r, &x->nw_node) == -1 ||
		    proto_get_addr(&r, &x->nw_addr) == -1 ||
		    wire_get_str(&r, x->nw_host, sizeof(x->nw_host)) == -1 ||
		    wire_get_u8(&r, &x->nw_state) == -1 ||
		    x->nw_state == PROTO_NS_UNDEF ||
		    x->nw_state >= PROTO_NS_MAX ||
		    wire_get_u32(&r, &x->nw_job) == -1 ||
		    wire_get_u32(&r, &x->nw_load_milli) == -1 ||
		    wire_get_u32(&r, &x->nw_idle) == -1 ||
		    wire_get_u16(&r, &x->nw_users) == -1 ||
		    wire_get_u32(&r, &x->nw_seen_ms) == -1 ||
		    wire_get_u32(&r, &x->nw_pairs) == -1 ||
		    wire_get_u32(&r, &x->nw_switches) == -1 ||
		    wire_get_u16(&r, &x->nw_running) == -1 ||
		    wire_get_u16(&r, &x->nw_lent) == -1 ||
		    wire_get_u16(&r, &x->nw_total) == -1 ||
		    x->nw_total > PROTO_SLOTS_MAX ||
		    x->nw_lent > x->nw_total || x->nw_running > x->nw_total ||
		    wire_get_u32(&r, &x->nw_mem_mb) == -1 ||
		    wire_get_u8(&r, &x->nw_njobs) == -1 ||
		    x->nw_njobs > PROTO_NODE_JOBS_MAX)
			goto bad;
		for (k = 0; k < x->nw_njobs; k++)
			if (wire_get_u32(&r, &x->nw_jobs[k]) == -1)
				goto bad;
		if (wire_get_u8(&r, &x->nw_unenforced) == -1 ||
		    (x->nw_unenforced & ~PROTO_LIMIT_ALL) != 0)
			goto bad;
	}
	if (wire_get_end(&r) == -1)
		goto bad;
	*out = rows;
	return 0;
 bad:
	free(rows);
	return -1;
}

size_t
proto_assign_enc(const struct proto_assign *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->as_job);
	wire_put_u16(&w, m->as_slot);
	proto_put_addr(&w, &m->as_jobmgr);
	wire_put_str(&w, m->as_user);
	wire_put_u16(&w, m->as_cpus);
	wire_put_u32(&w, m->as_mem_mb);
	wire_put_u8(&w, m->as_room);
	return finish(&w);
}

int
proto_assign_dec(struct proto_assign *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->as_job) == -1 || m->as_job == 0 ||
	    wire_get_u16(&r, &m->as_slot) == -1 ||
	    m->as_slot >= PROTO_SLOTS_MAX ||
	    proto_get_addr(&r, &m->as_jobmgr) == -1 ||
	    wire_get_str(&r, m->as_user, sizeof(m->as_user)) == -1 ||
	    !msg_user_name_ok(m->as_user) ||
	    wire_get_u16(&r, &m->as_cpus) == -1 ||
	    m->as_cpus > PROTO_SLOTS_MAX ||
	    wire_get_u32(&r, &m->as_mem_mb) == -1 ||
	    m->as_mem_mb > PROTO_MEM_MB_MAX ||
	    wire_get_u8(&r, &m->as_room) == -1 || m->as_room > 1 ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_push_enc(const struct proto_push *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;
	uint32_t i;

	wire_w_init(&w, buf, cap);
	wire_put_u64(&w, m->pu_epoch);
	wire_put_u32(&w, m->pu_uptime_ms);
	wire_put_u32(&w, m->pu_njobs);
	for (i = 0; i < m->pu_njobs; i++) {
		const struct proto_push_job *j = &m->pu_jobs[i];

		wire_put_u32(&w, j->pj_job);
		wire_put_u32(&w, j->pj_count);
		wire_put_u32(&w, j->pj_pri);
		wire_put_u32(&w, j->pj_max);
		wire_put_u16(&w, j->pj_cpus);
		wire_put_u32(&w, j->pj_mem_mb);
		proto_put_addr(&w, &j->pj_jobmgr);
		wire_put_str(&w, j->pj_user);
	}
	wire_put_u32(&w, m->pu_nnodes);
	for (i = 0; i < m->pu_nnodes; i++) {
		wire_put_u32(&w, m->pu_nodes[i].pn_node);
		proto_put_addr(&w, &m->pu_nodes[i].pn_addr);
		wire_put_u16(&w, m->pu_nodes[i].pn_slots);
	}
	return finish(&w);
}

int
proto_push_dec(struct proto_push *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u64(&r, &m->pu_epoch) == -1 ||
	    wire_get_u32(&r, &m->pu_uptime_ms) == -1 ||
	    (m->pu_jobs = rows_alloc(&r, &m->pu_njobs,
	    sizeof(*m->pu_jobs))) == NULL)
		goto bad;
	for (i = 0; i < m->pu_njobs; i++) {
		struct proto_push_job *j = &m->pu_jobs[i];

		if (wire_get_u32(&r, &j->pj_job) == -1 || j->pj_job == 0 ||
		    wire_get_u32(&r, &j->pj_count) == -1 ||
		    wire_get_u32(&r, &j->pj_pri) == -1 || j->pj_pri == 0 ||
		    wire_get_u32(&r, &j->pj_max) == -1 ||
		    wire_get_u16(&r, &j->pj_cpus) == -1 ||
		    j->pj_cpus > PROTO_SLOTS_MAX ||
		    wire_get_u32(&r, &j->pj_mem_mb) == -1 ||
		    j->pj_mem_mb > PROTO_MEM_MB_MAX ||
		    proto_get_addr(&r, &j->pj_jobmgr) == -1 ||
		    wire_get_str(&r, j->pj_user, sizeof(j->pj_user)) == -1 ||
		    !msg_user_name_ok(j->pj_user))
			goto bad;
	}
	if ((m->pu_nodes = rows_alloc(&r, &m->pu_nnodes,
	    sizeof(*m->pu_nodes))) == NULL)
		goto bad;
	for (i = 0; i < m->pu_nnodes; i++)
		if (wire_get_u32(&r, &m->pu_nodes[i].pn_node) == -1 ||
		    proto_get_addr(&r, &m->pu_nodes[i].pn_addr) == -1 ||
		    wire_get_u16(&r, &m->pu_nodes[i].pn_slots) == -1 ||
		    m->pu_nodes[i].pn_slots > PROTO_SLOTS_MAX)
			goto bad;
	if (wire_get_end(&r) == -1)
		goto bad;
	return 0;
 bad:
	proto_push_free(m);
	return -1;
}

void
proto_push_free(struct proto_push *m)
{
	free(m->pu_jobs);
	free(m->pu_nodes);
	memset(m, 0, sizeof(*m));
}

size_t
proto_desc_req_enc(const struct proto_desc_req *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->dr_job);
	wire_put_str(&w, m->dr_node);
	wire_put_u64(&w, m->dr_fetch);
	return finish(&w);
}

int
proto_desc_req_dec(struct proto_desc_req *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->dr_job) == -1 || m->dr_job == 0 ||
	    wire_get_str(&r, m->dr_node, sizeof(m->dr_node)) == -1 ||
	    wire_get_u64(&r, &m->dr_fetch) == -1 ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_desc_enc(const struct proto_desc *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;
	uint16_t i;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->de_job);
	wire_put_u32(&w, m->de_task);
	wire_put_str(&w, m->de_node);
	wire_put_str(&w, m->de_user);
	wire_put_str(&w, m->de_cwd);
	wire_put_u32(&w, m->de_pri);
	wire_put_u32(&w, m->de_max);
	wire_put_u64(&w, m->de_issued_ms);
	wire_put_u16(&w, m->de_argc);
	for (i = 0; i < m->de_argc; i++)
		wire_put_str(&w, m->de_argv[i]);
	wire_put_u16(&w, m->de_envc);
	for (i = 0; i < m->de_envc; i++)
		wire_put_str(&w, m->de_env[i]);
	proto_stage_put(&w, &m->de_stage);
	return finish(&w);
}

/*
 * Reads count strings into freshly allocated copies.  *count is always
 * how many were copied, what proto_desc_free() frees: never the count
 * as sent, which may exceed the array.
 */
static int
get_strings(struct wire_r *r, uint16_t *count, char **v, int need_eq)
{
	char tmp[PROTO_ARG_MAX];
	uint16_t i, n;

	*count = 0;
	if (wire_get_u16(r, &n) == -1 || n > PROTO_ARGS_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		if (wire_get_str(r, tmp, sizeof(tmp)) == -1 ||
		    (need_eq && (tmp[0] == '=' || strchr(tmp, '=') == NULL)) ||
		    (v[i] = strdup(tmp)) == NULL)
			return -1;
		*count = (uint16_t)(i + 1);
	}
	return 0;
}

int
proto_desc_dec(struct proto_desc *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->de_job) == -1 || m->de_job == 0 ||
	    wire_get_u32(&r, &m->de_task) == -1 ||
	    wire_get_str(&r, m->de_node, sizeof(m->de_node)) == -1 ||
	    wire_get_str(&r, m->de_user, sizeof(m->de_user)) == -1 ||
	    !msg_user_name_ok(m->de_user) ||
	    wire_get_str(&r, m->de_cwd, sizeof(m->de_cwd)) == -1 ||
	    m->de_cwd[0] != '/' ||
	    wire_get_u32(&r, &m->de_pri) == -1 || m->de_pri == 0 ||
	    wire_get_u32(&r, &m->de_max) == -1 ||
	    wire_get_u64(&r, &m->de_issued_ms) == -1 ||
	    get_strings(&r, &m->de_argc, m->de_argv, 0) == -1 ||
	    m->de_argc == 0 || m->de_argv[0][0] == '\0' ||
	    get_strings(&r, &m->de_envc, m->de_env, 1) == -1 ||
	    proto_stage_get(&r, &m->de_stage) == -1 ||
	    wire_get_end(&r) == -1) {
		proto_desc_free(m);
		return -1;
	}
	return 0;
}

void
proto_desc_free(struct proto_desc *m)
{
	uint16_t i;

	for (i = 0; i < m->de_argc; i++)
		free(m->de_argv[i]);
	for (i = 0; i < m->de_envc; i++)
		free(m->de_env[i]);
	m->de_argc = m->de_envc = 0;
}

/*
 * One signing domain per purpose: a job description can never pass for
 * a root's backup, nor the other way round (cilknow-protocol(7)).
 */
static const char *
desc_domain(enum proto_desc_purpose purpose)
{
	return purpose == PROTO_DESC_ROOT ? "cilknow-rootbackup-v1" :
	    "cilknow-jobdesc-v2";
}

size_t
proto_desc_sign(const struct proto_desc *m, const struct msg_key *k,
    uint8_t *buf, size_t cap)
{
	return proto_desc_sign_for(m, PROTO_DESC_JOB, k, buf, cap);
}

int
proto_desc_open(struct proto_desc *m, struct msg_keyring *kr, double now,
    const uint8_t *buf, size_t len, char *why, size_t whylen)
{
	return proto_desc_open_for(m, PROTO_DESC_JOB, kr, now, buf, len, why,
	    whylen);
}

size_t
proto_desc_sign_for(const struct proto_desc *m,
    enum proto_desc_purpose purpose, const struct msg_key *k, uint8_t *buf,
    size_t cap)
{
	const char *domain = desc_domain(purpose);
	uint8_t body[MSG_PAYLOAD_MAX], sig[crypto_sign_BYTES];
	crypto_sign_state st;
	struct wire_w w;
	size_t n;

	if ((n = proto_desc_enc(m, body, sizeof(body))) == 0)
		return 0;
	crypto_sign_init(&st);
	crypto_sign_update(&st, (const uint8_t *)domain, strlen(domain) + 1);
	crypto_sign_update(&st, body, n);
	crypto_sign_final_create(&st, sig, NULL, k->k_sk);
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, k->k_id);
	wire_put_str(&w, m->de_user);	/* whose key, before any decoding */
	wire_put_u32(&w, (uint32_t)n);
	wire_put_bytes(&w, body, n);
	wire_put_bytes(&w, sig, sizeof(sig));
	return finish(&w);
}

int
proto_desc_open_for(struct proto_desc *m, enum proto_desc_purpose purpose,
    struct msg_keyring *kr, double now, const uint8_t *buf, size_t len,
    char *why, size_t whylen)
{
	const char *domain = desc_domain(purpose);
	const struct msg_key *k;
	const uint8_t *body, *sig;
	crypto_sign_state st;
	struct wire_r r;
	uint32_t keyid, n;
	char user[MSG_NAME_MAX + 1];

	if (proto_desc_is_munge(buf, len))
		return proto_desc_open_munge(m, purpose, kr, buf, len, why,
		    whylen);
	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &keyid) == -1 ||
	    wire_get_str(&r, user, sizeof(user)) == -1 ||
	    wire_get_u32(&r, &n) == -1 ||
	    wire_get_ref(&r, &body, n) == -1 ||
	    wire_get_ref(&r, &sig, crypto_sign_BYTES) == -1 ||
	    wire_get_end(&r) == -1 || !msg_user_name_ok(user)) {
		snprintf(why, whylen, "malformed description");
		return -1;
	}
	/* Verify before decoding: nothing unsigned is parsed or copied. */
	if ((k = msg_keyring_user_pub(kr, now, user, keyid)) == NULL) {
		snprintf(why, whylen, "no public key %08x for user %s",
		    keyid, user);
		return -1;
	}
	crypto_sign_init(&st);
	crypto_sign_update(&st, (const uint8_t *)domain, strlen(domain) + 1);
	crypto_sign_update(&st, body, n);
	if (crypto_sign_final_verify(&st, sig, k->k_pk) != 0) {
		snprintf(why, whylen, "bad signature for user %s", user);
		return -1;
	}
	if (proto_desc_dec(m, body, n) == -1) {
		snprintf(why, whylen, "malformed description signed by %s",
		    user);
		return -1;
	}
	/* The envelope named the signer; the signed body must agree. */
	if (strcmp(m->de_user, user) != 0) {
		snprintf(why, whylen, "description of user %s signed by %s",
		    m->de_user, user);
		proto_desc_free(m);
		return -1;
	}
	return 0;
}

size_t
proto_output_enc(const struct proto_output *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->ou_job);
	wire_put_u32(&w, m->ou_task);
	wire_put_u8(&w, m->ou_stream);
	wire_put_u64(&w, m->ou_offset);
	wire_put_u32(&w, (uint32_t)m->ou_status);
	wire_put_str(&w, m->ou_node);
	wire_put_u16(&w, m->ou_len);
	wire_put_bytes(&w, m->ou_data, m->ou_len);
	if (m->ou_has_usage) {
		if (m->ou_stream != PROTO_STREAM_EXIT)
			return 0;
		wire_put_u64(&w, m->ou_cpu_ms);
		wire_put_u64(&w, m->ou_maxrss_kb);
	}
	return finish(&w);
}

int
proto_output_dec(struct proto_output *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;
	uint32_t status;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->ou_job) == -1 ||
	    wire_get_u32(&r, &m->ou_task) == -1 ||
	    wire_get_u8(&r, &m->ou_stream) == -1 ||
	    m->ou_stream == PROTO_STREAM_UNDEF ||
	    m->ou_stream >= PROTO_STREAM_MAX ||
	    wire_get_u64(&r, &m->ou_offset) == -1 ||
	    wire_get_u32(&r, &status) == -1 ||
	    wire_get_str(&r, m->ou_node, sizeof(m->ou_node)) == -1 ||
	    wire_get_u16(&r, &m->ou_len) == -1 ||
	    m->ou_len > PROTO_CHUNK_MAX ||
	    wire_get_ref(&r, &m->ou_data, m->ou_len) == -1)
		return -1;
	/* The exit's usage: all 16 bytes, or none (an older node). */
	m->ou_cpu_ms = m->ou_maxrss_kb = PROTO_USAGE_NONE;
	if (m->ou_stream == PROTO_STREAM_EXIT && r.wr_left > 0) {
		m->ou_has_usage = 1;
		if (wire_get_u64(&r, &m->ou_cpu_ms) == -1 ||
		    wire_get_u64(&r, &m->ou_maxrss_kb) == -1)
			return -1;
	}
	if (wire_get_end(&r) == -1)
		return -1;
	m->ou_status = (int32_t)status;
	return 0;
}


size_t
proto_output_ack_enc(const struct proto_output_ack *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->oa_job);
	wire_put_u32(&w, m->oa_task);
	wire_put_u8(&w, m->oa_stream);
	wire_put_u64(&w, m->oa_offset);
	return finish(&w);
}

int
proto_output_ack_dec(struct proto_output_ack *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->oa_job) == -1 ||
	    wire_get_u32(&r, &m->oa_task) == -1 ||
	    wire_get_u8(&r, &m->oa_stream) == -1 ||
	    m->oa_stream == PROTO_STREAM_UNDEF ||
	    m->oa_stream >= PROTO_STREAM_MAX ||
	    wire_get_u64(&r, &m->oa_offset) == -1 || wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_pair_enc(const struct proto_pair *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u16(&w, m->pa_slot);
	wire_put_u32(&w, m->pa_job);
	wire_put_u32(&w, m->pa_count);
	wire_put_u32(&w, m->pa_pri);
	wire_put_u32(&w, m->pa_max);
	wire_put_u8(&w, m->pa_busy);
	proto_put_addr(&w, &m->pa_jobmgr);
	wire_put_str(&w, m->pa_user);
	return finish(&w);
}

int
proto_pair_dec(struct proto_pair *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u16(&r, &m->pa_slot) == -1 ||
	    m->pa_slot >= PROTO_SLOTS_MAX ||
	    wire_get_u32(&r, &m->pa_job) == -1 ||
	    wire_get_u32(&r, &m->pa_count) == -1 ||
	    wire_get_u32(&r, &m->pa_pri) == -1 ||
	    wire_get_u32(&r, &m->pa_max) == -1 ||
	    wire_get_u8(&r, &m->pa_busy) == -1 || m->pa_busy > 1 ||
	    get_addr_raw(&r, &m->pa_jobmgr) == -1 ||
	    wire_get_str(&r, m->pa_user, sizeof(m->pa_user)) == -1 ||
	    wire_get_end(&r) == -1)
		return -1;
	/* A job is named with its manager, user and a weight, or not at all. */
	if (m->pa_job != 0 ? m->pa_pri == 0 || !msg_user_name_ok(m->pa_user) ||
	    (m->pa_jobmgr.ma_family != 4 && m->pa_jobmgr.ma_family != 6) :
	    m->pa_jobmgr.ma_family != 0)
		return -1;
	return 0;
}

size_t
proto_error_enc(const struct proto_error *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u16(&w, m->er_handler);
	wire_put_str(&w, m->er_reason);
	return finish(&w);
}

int
proto_error_dec(struct proto_error *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u16(&r, &m->er_handler) == -1 ||
	    wire_get_str(&r, m->er_reason, sizeof(m->er_reason)) == -1 ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

void
proto_reply_error(struct msg_ep *ep, const struct msg_in *in,
    const char *why)
{
	struct proto_error e;
	uint8_t buf[PROTO_REASON_MAX + 16];
	size_t n;

	memset(&e, 0, sizeof(e));
	e.er_handler = in->mi_hdr->mh_handler;
	strlcpy(e.er_reason, why, sizeof(e.er_reason));
	if ((n = proto_error_enc(&e, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_ERROR, buf, n);
}

double
proto_owner_return(const struct proto_desc *d)
{
	const size_t len = sizeof(PROTO_OWNER_RETURN_ENV) - 1;
	const char *v;
	char *end;
	double s;
	uint16_t i;

	for (i = 0; i < d->de_envc; i++) {
		if (strncmp(d->de_env[i], PROTO_OWNER_RETURN_ENV, len) != 0 ||
		    d->de_env[i][len] != '=')
			continue;
		v = d->de_env[i] + len + 1;
		if (strncmp(v, "suspend=", 8) != 0)
			return 0;
		s = strtod(v + 8, &end);
		return *end == '\0' && s > 0 && s <= 86400 ? s : 0;
	}
	return 0;
}

/* The value of NAME=... in the description's environment, or NULL. */
static const char *
desc_env(const struct proto_desc *d, const char *name)
{
	size_t len = strlen(name);
	uint16_t i;

	for (i = 0; i < d->de_envc; i++)
		if (strncmp(d->de_env[i], name, len) == 0 &&
		    d->de_env[i][len] == '=')
			return d->de_env[i] + len + 1;
	return NULL;
}

int
proto_desc_needs(const struct proto_desc *d, uint16_t *cpus,
    uint32_t *mem_mb)
{
	const char *v;
	unsigned long long x;
	char *end;
	int asked = 0;

	*cpus = 1;
	*mem_mb = 0;
	if ((v = desc_env(d, PROTO_CPUS_ENV)) != NULL) {
		errno = 0;
		x = strtoull(v, &end, 10);
		if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 ||
		    x == 0 || x > PROTO_SLOTS_MAX)
			return -1;
		*cpus = (uint16_t)x;
		asked |= PROTO_NEEDS_CPUS;
	}
	if ((v = desc_env(d, PROTO_MEM_ENV)) != NULL) {
		errno = 0;
		x = strtoull(v, &end, 10);
		if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 ||
		    x > PROTO_MEM_MB_MAX)
			return -1;
		*mem_mb = (uint32_t)x;
		asked |= PROTO_NEEDS_MEM;
	}
	return asked;
}
