/* proto_page — LIST_PAGE, JOBS_PAGE and NODES_PAGE codecs. */
#include <stdlib.h>
#include <string.h>

#include "proto_page.h"
#include "wire.h"

size_t
proto_list_page_enc(const struct proto_list_page *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->lp_what);
	wire_put_u8(&w, m->lp_state);
	wire_put_u32(&w, m->lp_job);
	wire_put_u32(&w, m->lp_from);
	wire_put_u8(&w, m->lp_has_cookie ? 1 : 0);
	wire_put_bytes(&w, m->lp_cookie, sizeof(m->lp_cookie));
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_list_page_dec(struct proto_list_page *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->lp_what) == -1 ||
	    wire_get_u8(&r, &m->lp_state) == -1 ||
	    wire_get_u32(&r, &m->lp_job) == -1 ||
	    wire_get_u32(&r, &m->lp_from) == -1 ||
	    wire_get_u8(&r, &m->lp_has_cookie) == -1 ||
	    wire_get_bytes(&r, m->lp_cookie, sizeof(m->lp_cookie)) == -1 ||
	    wire_get_end(&r) == -1 ||
	    (m->lp_what != PROTO_LIST_JOBS && m->lp_what != PROTO_LIST_NODES) ||
	    m->lp_state >= PROTO_NS_MAX || m->lp_has_cookie > 1)
		return -1;
	return 0;
}

size_t
proto_page_enc(uint8_t what, uint32_t from, uint32_t next, const void *rows,
    uint32_t n, uint8_t *buf, size_t cap)
{
	struct wire_w w;
	size_t len;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, from);
	wire_put_u32(&w, next);
	if (wire_w_ok(&w) == -1 || n > PROTO_PAGE_ROWS)
		return 0;
	len = what == PROTO_LIST_JOBS ? proto_jobs_enc(rows, n,
	    buf + w.ww_len, cap - w.ww_len) : proto_nodes_enc(rows, n,
	    buf + w.ww_len, cap - w.ww_len);
	return len == 0 ? 0 : w.ww_len + len;
}

int
proto_page_dec(uint8_t what, struct proto_page *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;
	int rc;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->pg_from) == -1 ||
	    wire_get_u32(&r, &m->pg_next) == -1 ||
	    (m->pg_next != 0 && m->pg_next <= m->pg_from))
		return -1;
	rc = what == PROTO_LIST_JOBS ? proto_jobs_dec(&m->pg_jobs, &m->pg_n,
	    r.wr_p, r.wr_left) : proto_nodes_dec(&m->pg_nodes, &m->pg_n,
	    r.wr_p, r.wr_left);
	if (rc == -1)
		return -1;	/* the row decoder freed its rows */
	if (m->pg_n > PROTO_PAGE_ROWS) {
		free(m->pg_jobs);
		free(m->pg_nodes);
		memset(m, 0, sizeof(*m));
		return -1;
	}
	return 0;
}
