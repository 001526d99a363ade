/* json — quoting strings for JSON output (RFC 8259 §7). */
#include "json.h"

#include <stdint.h>
#include <string.h>

/* Where the output goes: a stream, or a bounded buffer. */
struct json_out {
	FILE	*jo_fp;
	char	*jo_buf;
	size_t	 jo_cap;
	size_t	 jo_len;	/* needed so far, even past jo_cap */
};

static void
out_bytes(struct json_out *o, const char *p, size_t n)
{
	size_t room;

	if (o->jo_fp != NULL)
		fwrite(p, 1, n, o->jo_fp);
	else if (o->jo_cap > 0 && o->jo_len < o->jo_cap - 1) {
		room = o->jo_cap - 1 - o->jo_len;
		memcpy(o->jo_buf + o->jo_len, p, n < room ? n : room);
	}
	o->jo_len += n;
}

/*
 * Length of the valid UTF-8 sequence at p (n bytes left), or 0 if it is
 * not one: overlong forms, surrogates and code points past U+10FFFF are
 * refused.
 */
static size_t
utf8_len(const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void
quote(struct json_out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s;
	char esc[7];
	size_t i = 0, len;

	out_bytes(o, "\"", 1);
	while (i < n) {
		switch (p[i]) {
		case '"':
			out_bytes(o, "\\\"", 2);
			break;
		case '\\':
			out_bytes(o, "\\\\", 2);
			break;
		case '\b':
			out_bytes(o, "\\b", 2);
			break;
		case '\f':
			out_bytes(o, "\\f", 2);
			break;
		case '\n':
			out_bytes(o, "\\n", 2);
			break;
		case '\r':
			out_bytes(o, "\\r", 2);
			break;
		case '\t':
			out_bytes(o, "\\t", 2);
			break;
		default:
			if (p[i] < 0x20 || p[i] == 0x7f) {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[p[i] >> 4];
				esc[5] = hex[p[i] & 0xf];
				out_bytes(o, esc, 6);
				break;
			}
			if ((len = utf8_len(p + i, n - i)) == 0) {
				out_bytes(o, "\\ufffd", 6);
				break;
			}
			out_bytes(o, s + i, len);
			i += len;
			continue;
		}
		i++;
	}
	out_bytes(o, "\"", 1);
}

void
json_put_strn(FILE *fp, const char *s, size_t n)
{
	struct json_out o;

	memset(&o, 0, sizeof(o));
	o.jo_fp = fp;
	quote(&o, s, n);
}

void
json_put_str(FILE *fp, const char *s)
{
	json_put_strn(fp, s, strlen(s));
}

size_t
json_quote(char *buf, size_t bufsz, const char *s)
{
	struct json_out o;

	memset(&o, 0, sizeof(o));
	o.jo_buf = buf;
	o.jo_cap = bufsz;
	quote(&o, s, strlen(s));
	if (bufsz > 0)
		buf[o.jo_len < bufsz ? o.jo_len : bufsz - 1] = '\0';
	return o.jo_len;
}
