/*
 * output_test — the job manager's whole lines (linebuf.h) and the
 * --output/--error file name patterns (outpat.h).
 */
#include <stdio.h>
#include <string.h>

#include "linebuf.h"
#include "outpat.h"
#include "tap.h"

static char	got[LINEBUF_MAX * 3];
static size_t	gotlen;
static int	lines;

/* Each line as "<line>|". */
static int
collect(void *arg, const char *line, size_t len)
{
	(void)arg;
	if (gotlen + len + 1 < sizeof(got)) {
		memcpy(got + gotlen, line, len);
		gotlen += len;
		got[gotlen++] = '|';
		got[gotlen] = '\0';
	}
	lines++;
	return 0;
}

static void
reset(void)
{
	got[0] = '\0';
	gotlen = 0;
	lines = 0;
}

static void
test_linebuf(void)
{
	static char big[LINEBUF_MAX + 10];
	struct linebuf lb;
	const char *s = "t0:1\nt0:2\nt0:3\n";
	size_t i;

	memset(&lb, 0, sizeof(lb));
	reset();
	ok(linebuf_feed(&lb, "ab", 2, collect, NULL) == 0 && lines == 0,
	    "a partial line is kept");
	ok(linebuf_feed(&lb, "c\nde", 4, collect, NULL) == 0 &&
	    strcmp(got, "abc|") == 0, "its end gives the whole line");
	ok(linebuf_flush(&lb, collect, NULL) == 0 &&
	    strcmp(got, "abc|de|") == 0 && lb.lb_len == 0,
	    "flush gives the rest as a line");
	ok(linebuf_flush(&lb, collect, NULL) == 0 && lines == 2,
	    "an empty flush gives nothing");
	reset();
	/* Any split gives the same lines. */
	for (i = 0; i < strlen(s); i++) {
		(void)linebuf_feed(&lb, s, i, collect, NULL);
		(void)linebuf_feed(&lb, s + i, strlen(s) - i, collect, NULL);
	}
	ok(lines == 3 * (int)strlen(s) && lb.lb_len == 0,
	    "every split point: 3 lines each time, nothing left over");
	reset();
	(void)linebuf_feed(&lb, "\n\n", 2, collect, NULL);
	is_str(got, "||", "empty lines stay lines");
	reset();
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	ok(linebuf_feed(&lb, big, sizeof(big), collect, NULL) == 0 &&
	    lines == 2 && gotlen == LINEBUF_MAX + 9 + 2,
	    "a line over LINEBUF_MAX comes out in two pieces, nothing lost");
	reset();
	big[LINEBUF_MAX] = '\n';
	ok(linebuf_feed(&lb, big, LINEBUF_MAX + 1, collect, NULL) == 0 &&
	    lines == 1, "a line of exactly LINEBUF_MAX is one line");
	linebuf_clear(&lb);
	ok(lb.lb_buf == NULL && lb.lb_len == 0, "clear frees");
}

static void
test_outpat(void)
{
	char buf[OUTPAT_MAX], why[128];

	ok(outpat_check("out-%j-%t-%n.txt", why, sizeof(why)) == 0,
	    "%%j %%t %%n are good");
	ok(outpat_check("a%q", why, sizeof(why)) == -1 &&
	    strstr(why, "%q") != NULL, "%%q refused: %s", why);
	ok(outpat_check("a%", why, sizeof(why)) == -1, "a lone %% refused");
	ok(outpat_check("", why, sizeof(why)) == -1, "empty refused");
	ok(outpat_check("dir/", why, sizeof(why)) == -1, "a folder refused");
	ok(outpat_expand("o-%j-%t-%n.%%", 12, 3, "127.0.0.2/1", buf,
	    sizeof(buf)) == 0, "expands");
	is_str(buf, "o-12-3-127.0.0.2.%", "job, task, host without slot, %%");
	ok(outpat_expand("%n", 1, 0, "../..", buf, sizeof(buf)) == 0,
	    "a hostile node name");
	is_str(buf, "_", "'/' ends it: the host part only, and .. is _");
	ok(outpat_expand("x-%n", 1, 0, "a b\n", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "x-a_b_") == 0, "odd characters become _");
	ok(outpat_expand("%n", 1, 0, "..", buf, sizeof(buf)) == 0 &&
	    strcmp(buf, "_") == 0, "a host of .. becomes _");
	ok(outpat_expand("%j%j%j", 4294967295u, 0, "", buf, 20) == -1,
	    "too long for the buffer: refused");
	ok(outpat_per_task("a-%t") && !outpat_per_task("a-%%t") &&
	    !outpat_per_task("a-%j"), "per task only with a real %%t");
}

int
main(void)
{
	test_linebuf();
	test_outpat();
	return tap_done();
}
