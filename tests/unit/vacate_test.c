/* vacate_test — the plan for a worker the owner wants gone. */

#include <string.h>

#include "tap.h"
#include "vacate.h"

int
main(void)
{
	struct vacate v;

	memset(&v, 0, sizeof(v));
	ok(!vacate_pending(&v), "nothing planned: nothing pending");
	ok(vacate_due(&v, 1e9) == VACATE_NONE, "and nothing due");

	/* grace 60, fast 1, from t=100 */
	ok(vacate_begin(&v, 100, 60, 1) == 1, "fast below grace: a plan");
	ok(vacate_pending(&v), "pending");
	ok(vacate_due(&v, 100.5) == VACATE_NONE, "nothing before fast");
	ok(vacate_due(&v, 101) == VACATE_FREEZE, "frozen at fast");
	ok(v.va_frozen == 1, "marked frozen");
	ok(vacate_due(&v, 101.1) == VACATE_NONE, "a freeze once");
	ok(vacate_due(&v, 159.9) == VACATE_NONE, "frozen through grace");
	ok(vacate_pending(&v), "the kill still to come");
	ok(vacate_due(&v, 160) == VACATE_KILL, "killed at grace");
	ok(!vacate_pending(&v) && vacate_due(&v, 1000) == VACATE_NONE,
	    "then nothing");

	/* A second owner's return later keeps the sooner steps. */
	memset(&v, 0, sizeof(v));
	ok(vacate_begin(&v, 100, 60, 1) == 1, "plan at 100");
	ok(vacate_begin(&v, 130, 60, 1) == 1, "again at 130");
	ok(v.va_freeze_at == 101 && v.va_kill_at == 160,
	    "the sooner steps stay (101, 160)");
	ok(vacate_due(&v, 101) == VACATE_FREEZE, "freeze");
	ok(vacate_begin(&v, 110, 10, 1) == 1 && v.va_freeze_at == 0 &&
	    v.va_kill_at == 120, "a plan after the freeze: no second "
	    "freeze, the sooner kill (120)");
	ok(vacate_due(&v, 120) == VACATE_KILL, "killed at 120");

	/* A late tick: past the kill, the kill comes, not a freeze. */
	memset(&v, 0, sizeof(v));
	(void)vacate_begin(&v, 0, 2, 1);
	ok(vacate_due(&v, 5) == VACATE_KILL, "a late look: killed at once");
	ok(!vacate_pending(&v), "nothing after");

	/* fast not below grace, or negative: no plan. */
	memset(&v, 0, sizeof(v));
	ok(vacate_begin(&v, 0, 1, 1) == 0 && !vacate_pending(&v),
	    "fast = grace: no plan (the ordinary stop)");
	ok(vacate_begin(&v, 0, 1, 5) == 0 && !vacate_pending(&v),
	    "fast > grace: no plan");
	ok(vacate_begin(&v, 0, -1, -2) == 0 && !vacate_pending(&v),
	    "negative: no plan");
	ok(vacate_begin(&v, 10, 3, 0) == 1 && vacate_due(&v, 10) ==
	    VACATE_FREEZE, "fast 0: frozen at once");

	(void)vacate_begin(&v, 0, 3, 0);
	vacate_clear(&v);
	ok(!vacate_pending(&v) && v.va_frozen == 0, "cleared");
	return tap_done();
}
