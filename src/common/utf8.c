/* utf8 — see include/utf8.h. */
#include "utf8.h"

#include <string.h>

size_t
utf8_decode(const uint8_t *p, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c, min;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2; c = p[0] & 0x1f; min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3; c = p[0] & 0x0f; min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4; c = p[0] & 0x07; min = 0x10000;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int
utf8_prints(uint32_t c)
{
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
		return 0;
	if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
		return 0;
	return 1;
}

size_t
utf8_termsafe(char *buf, size_t bufsz, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t left = strlen(s), o = 0, n, replaced = 0;
	uint32_t c;

	if (bufsz == 0)
		return 0;
	while (left > 0) {
		if ((n = utf8_decode(p, left, &c)) != 0 && utf8_prints(c)) {
			if (o + n > bufsz - 1)
				break;
			memcpy(buf + o, p, n);
			o += n;
		} else {
			if (o + 1 > bufsz - 1)
				break;
			buf[o++] = '?';
			replaced++;
			n = n == 0 ? 1 : n;	/* a bad byte, or a whole char */
		}
		p += n;
		left -= n;
	}
	buf[o] = '\0';
	return replaced;
}
