/*
 * codec_robust — what every codec test checks of a good encoding: every
 * strict prefix and one extra byte are refused, the whole decodes.
 * Header-only, for the TAP unit tests (after tap.h).
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
	static uint8_t tmp[MSG_PAYLOAD_MAX + 1];
	size_t i;
	int bad = 0;

	for (i = 0; i < len; i++)
		if (dec(buf, i) == 0)
			bad++;
	ok(bad == 0, "%s: every truncation (%zu) refused", what, len);
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	ok(dec(tmp, len + 1) == -1, "%s: a trailing byte refused", what);
	ok(dec(buf, len) == 0, "%s: the whole message decodes", what);
}

#endif
