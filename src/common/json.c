/* json — quoting strings for JSON output (RFC 8259 §7). */
#include "json.h"

#include <stdint.h>
#include <string.h>

#include "utf8.h"

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

static void
quote(struct json_out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)s;
	char esc[7];
	size_t i = 0, len;
	uint32_t cp;

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
			if ((len = utf8_decode(p + i, n - i, &cp)) == 0) {
				out_bytes(o, "\\ufffd", 6);
				break;
			}
			/* Kept in the text, escaped: safe on a terminal too. */
			if (!utf8_prints(cp)) {
				memcpy(esc, "\\u", 2);
				esc[2] = hex[cp >> 12 & 0xf];
				esc[3] = hex[cp >> 8 & 0xf];
				esc[4] = hex[cp >> 4 & 0xf];
				esc[5] = hex[cp & 0xf];
				out_bytes(o, esc, 6);
				i += len;
				continue;
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
