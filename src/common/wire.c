/* wire — big-endian field codec with bounds checks. */
#include "wire.h"

#include <string.h>

void
wire_w_init(struct wire_w *w, uint8_t *buf, size_t cap)
{
	w->ww_buf = buf;
	w->ww_len = 0;
	w->ww_cap = cap;
	w->ww_overflow = 0;
}

static uint8_t *
wire_w_room(struct wire_w *w, size_t n)
{
	uint8_t *p;

	if (w->ww_overflow || w->ww_cap - w->ww_len < n) {
		w->ww_overflow = 1;
		return NULL;
	}
	p = w->ww_buf + w->ww_len;
	w->ww_len += n;
	return p;
}

void
wire_put_u8(struct wire_w *w, uint8_t v)
{
	uint8_t *p;

	if ((p = wire_w_room(w, 1)) != NULL)
		p[0] = v;
}

void
wire_put_u16(struct wire_w *w, uint16_t v)
{
	uint8_t *p;

	if ((p = wire_w_room(w, 2)) != NULL) {
		p[0] = v >> 8;
		p[1] = v;
	}
}

void
wire_put_u32(struct wire_w *w, uint32_t v)
{
	uint8_t *p;
	int i;

	if ((p = wire_w_room(w, 4)) != NULL)
		for (i = 0; i < 4; i++)
			p[i] = v >> (24 - 8 * i);
}

void
wire_put_u64(struct wire_w *w, uint64_t v)
{
	uint8_t *p;
	int i;

	if ((p = wire_w_room(w, 8)) != NULL)
		for (i = 0; i < 8; i++)
			p[i] = v >> (56 - 8 * i);
}

void
wire_put_bytes(struct wire_w *w, const void *src, size_t n)
{
	uint8_t *p;

	if ((p = wire_w_room(w, n)) != NULL && n > 0)
		memcpy(p, src, n);
}

void
wire_put_str(struct wire_w *w, const char *s)
{
	size_t n = strlen(s);

	if (n > UINT16_MAX) {
		w->ww_overflow = 1;
		return;
	}
	wire_put_u16(w, (uint16_t)n);
	wire_put_bytes(w, s, n);
}

int
wire_w_ok(const struct wire_w *w)
{
	return w->ww_overflow ? -1 : 0;
}

void
wire_r_init(struct wire_r *r, const void *buf, size_t len)
{
	r->wr_p = buf;
	r->wr_left = len;
}

int
wire_get_ref(struct wire_r *r, const uint8_t **p, size_t n)
{
	if (r->wr_left < n)
		return -1;
	*p = r->wr_p;
	r->wr_p += n;
	r->wr_left -= n;
	return 0;
}

int
wire_get_bytes(struct wire_r *r, void *dst, size_t n)
{
	const uint8_t *p;

	if (wire_get_ref(r, &p, n) == -1)
		return -1;
	if (n > 0)
		memcpy(dst, p, n);
	return 0;
}

int
wire_get_u8(struct wire_r *r, uint8_t *v)
{
	const uint8_t *p;

	if (wire_get_ref(r, &p, 1) == -1)
		return -1;
	*v = p[0];
	return 0;
}

int
wire_get_u16(struct wire_r *r, uint16_t *v)
{
	const uint8_t *p;

	if (wire_get_ref(r, &p, 2) == -1)
		return -1;
	*v = (uint16_t)(p[0] << 8 | p[1]);
	return 0;
}

int
wire_get_u32(struct wire_r *r, uint32_t *v)
{
	const uint8_t *p;

	if (wire_get_ref(r, &p, 4) == -1)
		return -1;
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
	return 0;
}

int
wire_get_u64(struct wire_r *r, uint64_t *v)
{
	uint32_t hi, lo;

	if (r->wr_left < 8)
		return -1;
	(void)wire_get_u32(r, &hi);
	(void)wire_get_u32(r, &lo);
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}

int
wire_get_str(struct wire_r *r, char *dst, size_t dstsz)
{
	const uint8_t *p;
	uint16_t n;
	struct wire_r save = *r;

	if (wire_get_u16(r, &n) == -1 || n >= dstsz ||
	    wire_get_ref(r, &p, n) == -1 || memchr(p, '\0', n) != NULL) {
		*r = save;
		return -1;
	}
	memcpy(dst, p, n);
	dst[n] = '\0';
	return 0;
}

int
wire_get_end(const struct wire_r *r)
{
	return r->wr_left == 0 ? 0 : -1;
}
