/*
 * wire — big-endian field codec with bounds checks.  A writer records
 * overflow and refuses further writes; every reader fails (-1) rather
 * than read past what it was given.  Never memcpy a struct to the wire.
 */
#ifndef CILKNOW_WIRE_H
#define CILKNOW_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct wire_w {
	uint8_t		*ww_buf;
	size_t		 ww_len;
	size_t		 ww_cap;
	int		 ww_overflow;
};

struct wire_r {
	const uint8_t	*wr_p;
	size_t		 wr_left;
};

void	wire_w_init(struct wire_w *, uint8_t *, size_t);
void	wire_put_u8(struct wire_w *, uint8_t);
void	wire_put_u16(struct wire_w *, uint16_t);
void	wire_put_u32(struct wire_w *, uint32_t);
void	wire_put_u64(struct wire_w *, uint64_t);
void	wire_put_bytes(struct wire_w *, const void *, size_t);
/* u16 length, then the bytes (no NUL). */
void	wire_put_str(struct wire_w *, const char *);
/* 0 if nothing overflowed, else -1. */
int	wire_w_ok(const struct wire_w *);

void	wire_r_init(struct wire_r *, const void *, size_t);
int	wire_get_u8(struct wire_r *, uint8_t *);
int	wire_get_u16(struct wire_r *, uint16_t *);
int	wire_get_u32(struct wire_r *, uint32_t *);
int	wire_get_u64(struct wire_r *, uint64_t *);
int	wire_get_bytes(struct wire_r *, void *, size_t);
/* Points *p at the next n bytes without copying. */
int	wire_get_ref(struct wire_r *, const uint8_t **, size_t);
/*
 * u16 length, then the bytes, into dst (NUL-terminated); fails when the
 * length exceeds what is left, dstsz - 1, or the bytes hold a NUL.
 */
int	wire_get_str(struct wire_r *, char *dst, size_t dstsz);
/* 0 when every byte was consumed: leftover bytes are an error. */
int	wire_get_end(const struct wire_r *);

#endif
