/*
 * utf8_test — what reaches a terminal from the network: printable
 * UTF-8 kept whole, every control (C0, DEL, C1 as UTF-8 and as raw
 * bytes), the bidi overrides and malformed UTF-8 replaced, and the
 * buffer never overrun nor ended inside a character; JSON escapes the
 * same characters instead of printing them.
 */
#include "utf8.h"

#include <string.h>

#include "json.h"
#include "tap.h"

static const char *
safe(const char *s)
{
	static char buf[256];

	(void)utf8_termsafe(buf, sizeof(buf), s);
	return buf;
}

int
main(void)
{
	char small[5], buf2[64];
	uint32_t cp = 0;
	size_t n;

	is_str(safe("queens 12"), "queens 12", "plain ASCII is kept");
	is_str(safe("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x88"),
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x88",
	    "two-, three- and four-byte characters are kept");
	is_str(safe("a\x1b[2Jb"), "a?[2Jb", "ESC (C0) is replaced");
	is_str(safe("a\rb\nc\td"), "a?b?c?d", "CR, LF and TAB are replaced");
	is_str(safe("a\x7f" "b"), "a?b", "DEL is replaced");
	is_str(safe("a\xc2\x9b" "2Jb"), "a?2Jb",
	    "CSI as UTF-8 (U+009B) is one '?'");
	is_str(safe("a\xc2\x9d" "0;x\xc2\x9c"), "a?0;x?",
	    "OSC and ST as UTF-8 are replaced");
	is_str(safe("a\x9b" "2J"), "a?2J", "a raw 8-bit CSI byte is replaced");
	is_str(safe("x\xe2\x80\xae" "cba"), "x?cba",
	    "RIGHT-TO-LEFT OVERRIDE is replaced");
	is_str(safe("x\xe2\x81\xa6" "y"), "x?y", "LEFT-TO-RIGHT ISOLATE too");
	is_str(safe("\xc0\xaf"), "??", "an overlong '/' is two bad bytes");
	is_str(safe("\xed\xa0\x80"), "???", "a surrogate is refused");
	is_str(safe("\xf4\x90\x80\x80"), "????", "beyond U+10FFFF is refused");
	is_str(safe("\xe2\x82"), "??", "a character cut short by the end");
	is_str(safe("\xe2\x82" "A"), "??A", "a character cut short by ASCII");
	is_str(safe("\xff\xfe"), "??", "bytes that never start UTF-8");
	is_str(safe(""), "", "the empty string");

	n = utf8_termsafe(small, sizeof(small), "ab\x1b\x1b\x1b\x1b");
	is_str(small, "ab??", "the copy stops at the buffer's end");
	is_int(n, 2, "and counts the replacements it made");
	(void)utf8_termsafe(small, sizeof(small), "abc\xc3\xa9");
	is_str(small, "abc", "a character that does not fit is left out whole");
	(void)utf8_termsafe(small, 1, "abc");
	is_str(small, "", "a one-byte buffer holds the terminator only");
	is_int(utf8_termsafe(small, sizeof(small), "\x1b\x1b\x1b"), 3,
	    "three replacements counted");

	(void)json_quote(buf2, sizeof(buf2), "a\xc2\x9b" "2J\xe2\x80\xae" "b\x1b");
	is_str(buf2, "\"a\\u009b2J\\u202eb\\u001b\"",
	    "JSON escapes C1, bidi overrides and C0 as \\uXXXX");
	(void)json_quote(buf2, sizeof(buf2), "caf\xc3\xa9 \xff");
	is_str(buf2, "\"caf\xc3\xa9 \\ufffd\"",
	    "and keeps printable UTF-8, marking bad bytes U+FFFD");
	is_int(utf8_decode((const uint8_t *)"\xe2\x82\xac", 2, &cp), 0,
	    "utf8_decode stops at n, not at a NUL");
	is_int(utf8_decode((const uint8_t *)"\xe2\x82\xac", 3, &cp), 3,
	    "a whole euro sign is three bytes");
	is_int(cp, 0x20ac, "U+20AC");
	return tap_done();
}
