/* Unit tests of keyrate: per-key token buckets in a table of fixed size. */
#include <stdio.h>
#include <string.h>

#include "keyrate.h"
#include "tap.h"

int
main(void)
{
	struct keyrate kr;
	struct keyrate_ent *e;
	char key[16];
	int i, n;

	ok(keyrate_init(&kr, 4, 2, 5, (struct log_rate)LOG_RATE(60, 3)) == 0,
	    "init");
	/* A burst of 5, then nothing until time passes. */
	for (n = 0, i = 0; i < 20; i++)
		n += keyrate_take(&kr, "ann", 3, 100.0);
	is_int(n, 5, "ann takes her burst of 5 of 20 at once");
	is_int(keyrate_take(&kr, "bob", 3, 100.0), 1,
	    "bob is not held up by ann");
	is_int(keyrate_take(&kr, "ann", 3, 100.4), 0,
	    "0.4 s later ann still waits (rate 2/s)");
	is_int(keyrate_take(&kr, "ann", 3, 100.6), 1,
	    "0.6 s later one more");
	for (n = 0, i = 0; i < 100; i++)
		n += keyrate_take(&kr, "ann", 3, 100.6 + i * 0.1);
	ok(n >= 19 && n <= 21, "10 s at 10 a second: about 20 taken (%d)",
	    n);
	/* The bucket never holds more than the burst. */
	for (n = 0, i = 0; i < 20; i++)
		n += keyrate_take(&kr, "bob", 3, 1000.0);
	is_int(n, 5, "after a long pause, still only a burst of 5");
	e = keyrate_get(&kr, "ann", 3, 1000.0);
	ok(e->ke_refused > 0, "refusals are counted (%lu)", e->ke_refused);
	/* Each key logs on its own budget. */
	for (n = 0, i = 0; i < 10; i++)
		n += log_rate(&e->ke_log, 1000.0, "test lines of ann");
	is_int(n, 3, "ann's lines: 3 of 10 in a window");
	e = keyrate_get(&kr, "bob", 3, 1000.0);
	is_int(log_rate(&e->ke_log, 1000.0, "test lines of bob"), 1,
	    "bob's own line is logged");
	/* A full table forgets the key used least recently. */
	for (i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		(void)keyrate_take(&kr, key, strlen(key), 2000.0 + i);
	}
	is_int(kr.kr_n, 4, "the table holds 4 keys at most");
	for (n = 0, i = 0; i < 10; i++)
		n += keyrate_take(&kr, "ann", 3, 3000.0);
	is_int(n, 5, "a forgotten key comes back with a full bucket");
	/* Long keys are cut, not overrun. */
	{
		char big[200];

		memset(big, 'x', sizeof(big));
		e = keyrate_get(&kr, big, sizeof(big), 4000.0);
		is_int(e->ke_klen, KEYRATE_KEY_MAX, "a long key is cut");
	}
	keyrate_fini(&kr);
	ok(keyrate_init(&kr, 0, 1, 1, (struct log_rate)LOG_RATE_DEFAULT) == -1,
	    "a table of no keys is refused");
	return tap_done();
}
