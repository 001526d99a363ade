/* nodecore_test — every combination of the node's facts. */

#include "tap.h"
#include "nodecore.h"
#include "pred.h"

static const char *
wname(enum nc_worker w)
{
	static const char *const n[NC_W_MAX] = { "none", "starting",
	    "running", "frozen", "stopping" };

	return n[w];
}

static void
test_states(void)
{
	/* owner_away, current, stop_pending, want_job -> state */
	static const struct {
		int away, cur, pend, want;
		enum proto_node_state want_state;
	} t[] = {
		{ 0, NC_W_NONE, 0, 0, PROTO_NS_BUSY },
		{ 0, NC_W_NONE, 0, 1, PROTO_NS_BUSY },
		{ 1, NC_W_NONE, 0, 0, PROTO_NS_IDLE },
		{ 1, NC_W_NONE, 0, 1, PROTO_NS_SWITCHING },
		{ 1, NC_W_STARTING, 0, 1, PROTO_NS_SWITCHING },
		{ 1, NC_W_STARTING, 0, 0, PROTO_NS_SWITCHING },
		{ 0, NC_W_STARTING, 1, 0, PROTO_NS_STOPPING },
		{ 1, NC_W_STARTING, 1, 1, PROTO_NS_STOPPING },
		{ 1, NC_W_RUNNING, 0, 0, PROTO_NS_RUNNING },
		{ 1, NC_W_RUNNING, 0, 1, PROTO_NS_RUNNING },
		{ 0, NC_W_FROZEN, 0, 0, PROTO_NS_SUSPENDED },
		{ 0, NC_W_STOPPING, 0, 0, PROTO_NS_STOPPING },
		{ 1, NC_W_STOPPING, 0, 1, PROTO_NS_STOPPING },
		{ 1, NC_W_STOPPING, 0, 0, PROTO_NS_STOPPING },
	};
	struct nc_facts f;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		f.nf_owner_away = t[i].away;
		f.nf_current = (enum nc_worker)t[i].cur;
		f.nf_stop_pending = t[i].pend;
		f.nf_want_job = t[i].want;
		ok(nc_node_state(&f) == t[i].want_state,
		    "owner %s, worker %s%s%s: %s", t[i].away ? "away" : "here",
		    wname(f.nf_current), t[i].pend ? " (stop pending)" : "",
		    t[i].want ? ", a job being fetched" : "",
		    proto_state_name(t[i].want_state));
	}
}

static void
test_slots(void)
{
	uint32_t lent;
	int i;

	/* The default predicate: load .35 to become idle, .80 to stay. */
	ok(nc_slots_lent(4, 0, 2, 2) == 2,
	    "owner's load 2 on 4 processors (keeps 2 either way): lends 2");
	ok(nc_slots_lent(8, 0, 0, 0) == 8, "no owner load: every processor");
	ok(nc_slots_lent(4, 4, 3, 3) == 1,
	    "a rising load takes back at once, as many as it keeps");
	ok(nc_slots_lent(4, 2, 2, 1) == 2,
	    "a load that keeps 2 to become idle but 1 to stay: still 2");
	ok(nc_slots_lent(4, 2, 1, 1) == 3,
	    "one more once it keeps only 1 by the lower thresholds too");
	ok(nc_slots_lent(4, 4, PRED_KEEP_ALL, PRED_KEEP_ALL) == 0,
	    "an unknown load lends none");
	ok(nc_slots_lent(4, 9, 0, 0) == 4, "never more than the processors");
	ok(nc_slots_lent(1, 1, 1, 0) == 1 && nc_slots_lent(1, 1, 1, 1) == 0 &&
	    nc_slots_lent(1, 0, 1, 0) == 0 && nc_slots_lent(1, 0, 0, 0) == 1,
	    "one processor: Cilk-NOW's rule, with its two thresholds");
	/* Load wavering 1.75 .. 1.85: keeps 2 to become, 1 or 2 to stay. */
	lent = 4;
	for (i = 0; i < 100; i++)
		lent = nc_slots_lent(4, lent, 2, i % 2 ? 1 : 2);
	ok(lent == 2, "a load wavering about a threshold settles and stays");
}

static void
test_state_sum(void)
{
	enum proto_node_state s[4] = { PROTO_NS_IDLE, PROTO_NS_BUSY,
	    PROTO_NS_RUNNING, PROTO_NS_STOPPING };

	ok(nc_node_state_sum(s, 0) == PROTO_NS_BUSY, "no slots: busy");
	ok(nc_node_state_sum(s, 2) == PROTO_NS_IDLE,
	    "one idle slot and one kept by the owner: idle");
	ok(nc_node_state_sum(s, 4) == PROTO_NS_RUNNING,
	    "any worker running: running");
	s[2] = PROTO_NS_SWITCHING;
	ok(nc_node_state_sum(s, 4) == PROTO_NS_SWITCHING,
	    "else one switching: switching");
	s[2] = PROTO_NS_SUSPENDED;
	ok(nc_node_state_sum(s, 4) == PROTO_NS_STOPPING,
	    "stopping before suspended");
	ok(nc_node_state_sum(s + 1, 2) == PROTO_NS_SUSPENDED,
	    "suspended before busy");
}

int
main(void)
{
	test_states();
	test_slots();
	test_state_sum();
	return tap_done();
}
