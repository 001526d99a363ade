/* proto_health — HEALTH_REQ and HEALTH codecs (proto_health.h). */
#include <string.h>

#include "proto_health.h"
#include "wire.h"

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

int
proto_health_reason_ok(const char *s)
{
	size_t n = strnlen(s, PROTO_HEALTH_REASON_MAX + 1), i;

	if (n == 0 || n > PROTO_HEALTH_REASON_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

/* A node as named on a command line: printable ASCII, no blanks. */
static int
node_name_ok(const char *s)
{
	size_t n = strnlen(s, PROTO_HOST_MAX), i;

	if (n == 0 || n >= PROTO_HOST_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* The shape the decoder insists on, so that encoding is canonical. */
static int
req_valid(const struct proto_health_req *m)
{
	switch (m->hq_op) {
	case PROTO_HO_LIST:
		return m->hq_node[0] == '\0' && m->hq_reason[0] == '\0';
	case PROTO_HO_DRAIN:
		return node_name_ok(m->hq_node) &&
		    proto_health_reason_ok(m->hq_reason);
	case PROTO_HO_RESUME:
		return node_name_ok(m->hq_node) && m->hq_reason[0] == '\0';
	default:
		return 0;
	}
}

size_t
proto_health_req_enc(const struct proto_health_req *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (!req_valid(m))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->hq_op);
	wire_put_str(&w, m->hq_node);
	wire_put_str(&w, m->hq_reason);
	wire_put_u8(&w, m->hq_has_cookie ? 1 : 0);
	if (m->hq_has_cookie)
		wire_put_bytes(&w, m->hq_cookie, PROTO_COOKIE_LEN);
	return finish(&w);
}

int
proto_health_req_dec(struct proto_health_req *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->hq_op) == -1 ||
	    wire_get_str(&r, m->hq_node, sizeof(m->hq_node)) == -1 ||
	    wire_get_str(&r, m->hq_reason, sizeof(m->hq_reason)) == -1 ||
	    wire_get_u8(&r, &m->hq_has_cookie) == -1 ||
	    m->hq_has_cookie > 1 || (m->hq_has_cookie &&
	    wire_get_bytes(&r, m->hq_cookie, PROTO_COOKIE_LEN) == -1) ||
	    wire_get_end(&r) == -1 || !req_valid(m))
		return -1;
	return 0;
}

static int
row_valid(const struct proto_health_row *h)
{
	return (h->hr_state == PROTO_NS_DRAIN ||
	    h->hr_state == PROTO_NS_DRAINED || h->hr_state == PROTO_NS_DOWN) &&
	    proto_health_reason_ok(h->hr_reason) &&
	    (h->hr_user[0] == '\0' || msg_user_name_ok(h->hr_user));
}

size_t
proto_health_enc(const struct proto_health *m, uint8_t *buf, size_t cap)
{
	const struct proto_health_row *h;
	struct wire_w w;
	uint16_t i;

	if (m->he_n > PROTO_HEALTH_ROWS_MAX || m->he_total < m->he_n ||
	    strnlen(m->he_done, sizeof(m->he_done)) == sizeof(m->he_done))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_str(&w, m->he_done);
	wire_put_u32(&w, m->he_total);
	wire_put_u16(&w, m->he_n);
	for (i = 0; i < m->he_n; i++) {
		h = &m->he_rows[i];
		if (!row_valid(h))
			return 0;
		wire_put_u32(&w, h->hr_node);
		proto_put_addr(&w, &h->hr_addr);
		wire_put_str(&w, h->hr_host);
		wire_put_u8(&w, h->hr_state);
		wire_put_str(&w, h->hr_reason);
		wire_put_str(&w, h->hr_user);
		wire_put_u64(&w, h->hr_since_ms);
	}
	return finish(&w);
}

int
proto_health_dec(struct proto_health *m, const uint8_t *buf, size_t len)
{
	struct proto_health_row *h;
	struct wire_r r;
	uint16_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_str(&r, m->he_done, sizeof(m->he_done)) == -1 ||
	    wire_get_u32(&r, &m->he_total) == -1 ||
	    wire_get_u16(&r, &m->he_n) == -1 ||
	    m->he_n > PROTO_HEALTH_ROWS_MAX || m->he_total < m->he_n)
		return -1;
	for (i = 0; i < m->he_n; i++) {
		h = &m->he_rows[i];
		if (wire_get_u32(&r, &h->hr_node) == -1 ||
		    proto_get_addr(&r, &h->hr_addr) == -1 ||
		    wire_get_str(&r, h->hr_host, sizeof(h->hr_host)) == -1 ||
		    wire_get_u8(&r, &h->hr_state) == -1 ||
		    wire_get_str(&r, h->hr_reason, sizeof(h->hr_reason)) ==
		    -1 ||
		    wire_get_str(&r, h->hr_user, sizeof(h->hr_user)) == -1 ||
		    wire_get_u64(&r, &h->hr_since_ms) == -1 || !row_valid(h))
			return -1;
	}
	return wire_get_end(&r);
}

size_t
proto_node_down_enc(const struct proto_node_down *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (m->nd_gen == 0 || !proto_health_reason_ok(m->nd_reason))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u64(&w, m->nd_boot);
	wire_put_u32(&w, m->nd_gen);
	wire_put_str(&w, m->nd_reason);
	return finish(&w);
}

int
proto_node_down_dec(struct proto_node_down *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u64(&r, &m->nd_boot) == -1 ||
	    wire_get_u32(&r, &m->nd_gen) == -1 ||
	    wire_get_str(&r, m->nd_reason, sizeof(m->nd_reason)) == -1 ||
	    wire_get_end(&r) == -1 || m->nd_gen == 0 ||
	    !proto_health_reason_ok(m->nd_reason))
		return -1;
	return 0;
}
