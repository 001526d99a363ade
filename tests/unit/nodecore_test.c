/* nodecore_test — every combination of the node's facts. */
#include "tap.h"
#include "nodecore.h"

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
test_owner(void)
{
	struct nc_facts f = { 1, NC_W_RUNNING, 0, 0 };

	ok(nc_owner_returns(&f, 0, 1) == NC_STOP,
	    "owner back, a job that did not ask: stop (vacate)");
	ok(nc_owner_returns(&f, 30, 1) == NC_FREEZE,
	    "owner back, a job that asked to be suspended: freeze");
	ok(nc_owner_returns(&f, 30, 0) == NC_STOP,
	    "owner back, suspension not allowed here: stop");
	f.nf_current = NC_W_STARTING;
	ok(nc_owner_returns(&f, 30, 1) == NC_STOP_PENDING,
	    "owner back while the worker starts: stop it once up");
	f.nf_stop_pending = 1;
	ok(nc_owner_returns(&f, 30, 1) == NC_NOTHING,
	    "and only once");
	f.nf_current = NC_W_FROZEN;
	f.nf_stop_pending = 0;
	ok(nc_owner_returns(&f, 30, 1) == NC_NOTHING,
	    "a frozen worker waits for its time");
	ok(nc_owner_leaves(&f) == NC_THAW, "owner away again: thaw it");
	f.nf_current = NC_W_STOPPING;
	ok(nc_owner_returns(&f, 30, 1) == NC_NOTHING &&
	    nc_owner_leaves(&f) == NC_NOTHING,
	    "a stopping worker goes, whatever the owner does");
	f.nf_current = NC_W_NONE;
	ok(nc_owner_returns(&f, 0, 1) == NC_NOTHING &&
	    nc_owner_leaves(&f) == NC_NOTHING, "no worker: nothing to do");
}

int
main(void)
{
	test_states();
	test_owner();
	return tap_done();
}
