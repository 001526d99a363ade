/* proto_hist — a node's ring of samples, HIST_REQ and HIST codecs. */
#include <stdio.h>
#include <string.h>

#include "proto_hist.h"
#include "wire.h"

/* Handlers 45 and 46 were given to the history (see proto.h). */
_Static_assert(PROTO_H_PROC < PROTO_H_HIST_REQ &&
    PROTO_H_HIST_REQ + 1 == PROTO_H_HIST && PROTO_H_HIST < PROTO_H_MAX,
    "handler numbers of the history clash");
/* The fullest answer still fits in one message. */
_Static_assert(64 + PROTO_HOST_MAX + PROTO_HIST_PAGE * (4 + 8 + 1 + 4 + 4 +
    4 + 2 + 2 + PROTO_HIST_NAMES_MAX + 4 + 2 + MSG_NAME_MAX) <=
    MSG_PAYLOAD_MAX, "a page of history does not fit in one message");

void
proto_hist_ring_init(struct proto_hist_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->hr_next = 1;
}

void
proto_hist_ring_push(struct proto_hist_ring *r,
    const struct proto_hist_sample *s)
{
	struct proto_hist_sample *d;

	d = &r->hr_s[(r->hr_next - 1) % PROTO_HIST_KEEP];
	*d = *s;
	d->hs_seq = r->hr_next++;
	if (r->hr_n < PROTO_HIST_KEEP)
		r->hr_n++;
}

const struct proto_hist_sample *
proto_hist_ring_last(const struct proto_hist_ring *r)
{
	if (r->hr_n == 0)
		return NULL;
	return &r->hr_s[(r->hr_next - 2) % PROTO_HIST_KEEP];
}

void
proto_hist_ring_page(const struct proto_hist_ring *r, uint32_t since,
    struct proto_hist *h)
{
	uint32_t seq;

	h->hi_n = 0;
	if (r->hr_n == 0) {
		h->hi_first = h->hi_last = 0;
		return;
	}
	h->hi_last = r->hr_next - 1;
	h->hi_first = r->hr_next - r->hr_n;
	seq = since < h->hi_first ? h->hi_first : since + 1;
	for (; seq <= h->hi_last && h->hi_n < PROTO_HIST_PAGE; seq++)
		h->hi_s[h->hi_n++] = r->hr_s[(seq - 1) % PROTO_HIST_KEEP];
}

void
proto_hist_names(char *buf, size_t bufsz, const char *const *names, size_t n)
{
	static const char more[] = ",...";
	size_t i, len = 0, add;

	if (bufsz == 0)
		return;
	buf[0] = '\0';
	if (bufsz > PROTO_HIST_NAMES_MAX + 1)
		bufsz = PROTO_HIST_NAMES_MAX + 1;
	for (i = 0; i < n; i++) {
		add = strlen(names[i]) + (len > 0);
		/* Room for the name, and for ",..." should more follow. */
		if (len + add + (i + 1 < n ? sizeof(more) - 1 : 0) >= bufsz) {
			if (len + sizeof(more) - 1 < bufsz)
				memcpy(buf + len, len > 0 ? more : more + 1,
				    sizeof(more) - (len > 0 ? 0 : 1));
			return;
		}
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%s",
		    len > 0 ? "," : "", names[i]);
	}
}

size_t
proto_hist_req_enc(const struct proto_hist_req *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->hq_since);
	wire_put_u8(&w, m->hq_has_cookie ? 1 : 0);
	if (m->hq_has_cookie)
		wire_put_bytes(&w, m->hq_cookie, PROTO_COOKIE_LEN);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_hist_req_dec(struct proto_hist_req *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->hq_since) == -1 ||
	    wire_get_u8(&r, &m->hq_has_cookie) == -1 ||
	    m->hq_has_cookie > 1 || (m->hq_has_cookie &&
	    wire_get_bytes(&r, m->hq_cookie, PROTO_COOKIE_LEN) == -1) ||
	    wire_get_end(&r) == -1)
		return -1;
	return 0;
}

size_t
proto_hist_enc(const struct proto_hist *m, uint8_t *buf, size_t cap)
{
	const struct proto_hist_sample *s;
	struct wire_w w;
	uint16_t i;

	if (m->hi_n > PROTO_HIST_PAGE)
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_str(&w, m->hi_node);
	wire_put_u64(&w, m->hi_boot);
	wire_put_u64(&w, m->hi_now_ms);
	wire_put_u32(&w, m->hi_first);
	wire_put_u32(&w, m->hi_last);
	wire_put_u16(&w, m->hi_n);
	for (i = 0; i < m->hi_n; i++) {
		s = &m->hi_s[i];
		wire_put_u32(&w, s->hs_seq);
		wire_put_u64(&w, s->hs_time_ms);
		wire_put_u8(&w, s->hs_state);
		wire_put_u32(&w, s->hs_owner_milli);
		wire_put_u32(&w, s->hs_guest_milli);
		wire_put_u32(&w, s->hs_idle);
		wire_put_u16(&w, s->hs_users);
		wire_put_str(&w, s->hs_names);
		wire_put_u32(&w, s->hs_job);
		wire_put_str(&w, s->hs_job_user);
		wire_put_u16(&w, s->hs_running);
		wire_put_u16(&w, s->hs_lent);
		wire_put_u16(&w, s->hs_total);
	}
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

static int
sample_dec(struct wire_r *r, struct proto_hist_sample *s)
{
	if (wire_get_u32(r, &s->hs_seq) == -1 ||
	    wire_get_u64(r, &s->hs_time_ms) == -1 ||
	    wire_get_u8(r, &s->hs_state) == -1 ||
	    s->hs_state == PROTO_NS_UNDEF ||
	    s->hs_state >= PROTO_NS_NODE_MAX ||
	    wire_get_u32(r, &s->hs_owner_milli) == -1 ||
	    wire_get_u32(r, &s->hs_guest_milli) == -1 ||
	    wire_get_u32(r, &s->hs_idle) == -1 ||
	    wire_get_u16(r, &s->hs_users) == -1 ||
	    wire_get_str(r, s->hs_names, sizeof(s->hs_names)) == -1 ||
	    wire_get_u32(r, &s->hs_job) == -1 ||
	    wire_get_str(r, s->hs_job_user, sizeof(s->hs_job_user)) == -1 ||
	    wire_get_u16(r, &s->hs_running) == -1 ||
	    wire_get_u16(r, &s->hs_lent) == -1 ||
	    wire_get_u16(r, &s->hs_total) == -1 ||
	    s->hs_total > PROTO_SLOTS_MAX || s->hs_lent > s->hs_total ||
	    s->hs_running > s->hs_total)
		return -1;
	return 0;
}

int
proto_hist_dec(struct proto_hist *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;
	uint32_t prev;
	uint16_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_str(&r, m->hi_node, sizeof(m->hi_node)) == -1 ||
	    wire_get_u64(&r, &m->hi_boot) == -1 ||
	    wire_get_u64(&r, &m->hi_now_ms) == -1 ||
	    wire_get_u32(&r, &m->hi_first) == -1 ||
	    wire_get_u32(&r, &m->hi_last) == -1 ||
	    wire_get_u16(&r, &m->hi_n) == -1 ||
	    m->hi_n > PROTO_HIST_PAGE || m->hi_first > m->hi_last ||
	    (m->hi_first == 0) != (m->hi_last == 0))
		return -1;
	/* Numbered within first..last, each above the one before. */
	prev = m->hi_first - 1;
	for (i = 0; i < m->hi_n; i++) {
		if (sample_dec(&r, &m->hi_s[i]) == -1 ||
		    m->hi_s[i].hs_seq <= prev ||
		    m->hi_s[i].hs_seq > m->hi_last)
			return -1;
		prev = m->hi_s[i].hs_seq;
	}
	return wire_get_end(&r);
}
