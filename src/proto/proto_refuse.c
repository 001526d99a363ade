/* proto_refuse — the DESC_REFUSED codec (proto_refuse.h). */
#include <string.h>

#include "proto_refuse.h"
#include "wire.h"

/* 1 to max - 1 bytes, no control bytes; blank allowed if sp. */
static int
text_ok(const char *s, size_t max, int sp)
{
	size_t n = strnlen(s, max), i;

	if (n == 0 || n >= max)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f ||
		    (!sp && s[i] == ' '))
			return 0;
	return 1;
}

static int
valid(const struct proto_desc_refused *m)
{
	return m->rf_job != 0 && m->rf_kind <= PROTO_REFUSED_WITHDRAWN &&
	    text_ok(m->rf_node, sizeof(m->rf_node), 0) &&
	    text_ok(m->rf_reason, sizeof(m->rf_reason), 1);
}

size_t
proto_desc_refused_enc(const struct proto_desc_refused *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (!valid(m))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->rf_job);
	wire_put_u8(&w, m->rf_kind);
	wire_put_u64(&w, m->rf_fetch);
	wire_put_str(&w, m->rf_node);
	wire_put_str(&w, m->rf_reason);
	return wire_w_ok(&w) == 0 ? w.ww_len : 0;
}

int
proto_desc_refused_dec(struct proto_desc_refused *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->rf_job) == -1 ||
	    wire_get_u8(&r, &m->rf_kind) == -1 ||
	    wire_get_u64(&r, &m->rf_fetch) == -1 ||
	    wire_get_str(&r, m->rf_node, sizeof(m->rf_node)) == -1 ||
	    wire_get_str(&r, m->rf_reason, sizeof(m->rf_reason)) == -1 ||
	    wire_get_end(&r) == -1 || !valid(m))
		return -1;
	return 0;
}
