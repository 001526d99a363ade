/*
 * codec_robust — what every codec test checks of a good encoding: every
 * strict prefix and extra bytes are refused, the whole decodes, and every
 * single-bit flip is refused or taken as bytes the encoder writes.
 * Header-only, for the TAP unit tests (after tap.h).
 *
 * A decode_fn returns 0 (taken), -1 (refused), or 1: taken, but encoding
 * the result again gives other bytes (see proto_rt.h).  One that cannot
 * encode again returns only 0 and -1; its bit flips then show only that
 * nothing crashes (which the sanitizers check).
 */
#ifndef CODEC_ROBUST_H
#define CODEC_ROBUST_H

#include <stdint.h>
#include <string.h>

#include "msg.h"

typedef int	decode_fn(const uint8_t *, size_t);

static void
robust(const char *what, decode_fn *dec, const uint8_t *buf, size_t len)
{
	static uint8_t tmp[MSG_PAYLOAD_MAX + 2];
	size_t i;
	int bad = 0, taken = 0, rc;

	for (i = 0; i < len; i++)
		if (dec(buf, i) != -1)
			bad++;
	ok(bad == 0, "%s: every truncation (%zu) refused", what, len);
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	tmp[len + 1] = 0xff;
	ok(dec(tmp, len + 1) == -1 && dec(tmp, len + 2) == -1,
	    "%s: trailing bytes refused", what);
	ok(dec(buf, len) == 0, "%s: the whole message decodes", what);
	bad = 0;
	for (i = 0; i < len * 8; i++) {
		tmp[i / 8] ^= (uint8_t)(1u << i % 8);
		if ((rc = dec(tmp, len)) == 0)
			taken++;
		else if (rc != -1)
			bad++;
		tmp[i / 8] ^= (uint8_t)(1u << i % 8);
	}
	ok(bad == 0, "%s: each of %zu bit flips refused or canonical "
	    "(%d taken)", what, len * 8, taken);
}

#endif
