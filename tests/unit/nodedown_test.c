/* nodedown: node-side start failures in a row take a node down. */
#include <stdint.h>
#include <string.h>

#include "nodedown.h"
#include "tap.h"

static void
test_count(void)
{
	struct nd_count c;

	nd_init(&c, 3);
	ok(!c.nd_down && c.nd_run == 0 && c.nd_gen == 0, "starts up");
	ok(!nd_fault(&c, "no space left in /s"), "fault 1: up");
	ok(!nd_fault(&c, "no space left in /s"), "fault 2: up");
	nd_started(&c);
	is_int(c.nd_run, 0, "a start that works: the count is 0 again");
	ok(!nd_fault(&c, "a") && !nd_fault(&c, "b"), "2 faults again: up");
	ok(nd_fault(&c, "no space left in /s (0 KiB free)"),
	    "the third in a row: down now");
	ok(c.nd_down, "down");
	is_int(c.nd_gen, 1, "the first down of its life");
	is_str(c.nd_reason, "no space left in /s (0 KiB free) (3 starts in a "
	    "row)", "the reason: the last fault's, and how many");
	ok(!nd_fault(&c, "again"), "another fault while down: not again");
	is_str(c.nd_reason, "no space left in /s (0 KiB free) (3 starts in a "
	    "row)", "the reason kept");
	nd_started(&c);
	ok(c.nd_down, "a worker that was starting comes up: still down");
	ok(nd_resumed(&c), "resumed: it was down");
	ok(!c.nd_down && c.nd_run == 0 && c.nd_reason[0] == '\0',
	    "up, count 0, no reason");
	ok(!nd_resumed(&c), "resumed again: was not down");
	ok(!nd_fault(&c, "x") && !nd_fault(&c, "x") && nd_fault(&c, "x"),
	    "down again after 3 more");
	is_int(c.nd_gen, 2, "a down of its own number");
}

static void
test_limits(void)
{
	struct nd_count c;
	char why[400];

	nd_init(&c, 1);
	ok(nd_fault(&c, "user bob unknown"), "limit 1: the first fault");
	is_str(c.nd_reason, "user bob unknown (1 starts in a row)",
	    "its reason");
	nd_init(&c, 0);
	is_int(c.nd_limit, 1, "limit 0 is 1");
	nd_init(&c, 5);
	ok(!nd_fault(&c, "a") && !nd_fault(&c, "a") && !nd_fault(&c, "a"),
	    "limit 5: 3 faults, up");
	nd_set_limit(&c, 4);
	ok(nd_fault(&c, "a"), "lowered to 4 on a reload: the fourth");
	nd_init(&c, 1);
	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	why[3] = '\n';
	why[4] = (char)0x90;
	ok(nd_fault(&c, why), "a long reason");
	is_int((int)strlen(c.nd_reason), ND_REASON_MAX, "cut to the maximum");
	ok(strstr(c.nd_reason, " (1 starts in a row)") != NULL &&
	    strcmp(c.nd_reason + ND_REASON_MAX - 20, " (1 starts in a row)")
	    == 0, "with its count at the end");
	ok(c.nd_reason[3] == '?' && c.nd_reason[4] == '?',
	    "control and non-ASCII bytes replaced");
	nd_init(&c, 1);
	ok(nd_fault(&c, ""), "no reason");
	is_str(c.nd_reason, "no reason given (1 starts in a row)",
	    "says so");
	nd_init(&c, 2);
	c.nd_run = UINT32_MAX;
	ok(nd_fault(&c, "x") && c.nd_run == UINT32_MAX, "the count does "
	    "not wrap");
	nd_init(&c, 1);
	c.nd_gen = UINT32_MAX;
	ok(nd_fault(&c, "x") && c.nd_gen == 1, "a down number never 0");
}

int
main(void)
{
	test_count();
	test_limits();
	return tap_done();
}
