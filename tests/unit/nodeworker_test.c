/*
 * nodeworker_test — a worker's state machine (nodeworker.h): every
 * event in every state, then events that cross on their way.
 */

#include "tap.h"
#include "nodeworker.h"

static const struct nw_conf conf = {
	.nc_fast = 1,
	.nc_allow_suspend = 1,
	.nc_suspend_max = 100,
	.nc_start_timeout = 60,
	.nc_stop_limit = 50,
	.nc_silence = 30,
};

/* The time a fixture reaches its state; events come at T_EV. */
#define T_EV		10.0
#define T_LATE		1000.0	/* every timeout over */
#define SUSPEND		5.0	/* a job that asks to be suspended */

/* A record in state s, reached by events; susp: its job's owner_return. */
static struct nw
fixture(enum nw_state s, double susp)
{
	struct nw w = { NW_NONE, 0, 0, 0, 0, 0, 0, 0, 0 };

	if (s == NW_NONE)
		return w;
	(void)nw_begin(&w, susp, 0);
	if (s == NW_STARTING)
		return w;
	(void)nw_spawned(&w, &conf, 0, 1);
	if (s == NW_RUNNING)
		return w;
	if (s == NW_SUSPENDED) {
		(void)nw_owner_back(&w, &conf, 2);
		return w;
	}
	if (s == NW_STOPPING) {
		(void)nw_stop(&w, &conf, 2);
		return w;
	}
	(void)nw_exited(&w, 3);
	if (s == NW_EXITED)
		return w;
	(void)nw_jobmgr_lost(&w, &conf, 4);	/* GONE */
	return w;
}

enum ev {
	E_BEGIN, E_SPAWNED, E_SPAWNED_STOP, E_REFUSED, E_REFUSED_NODE,
	E_EXITED, E_PAD_GONE, E_UNKNOWN, E_OWNER_BACK, E_OWNER_AWAY, E_STOP,
	E_VACATE, E_JOB_ENDED, E_JOBMGR_LOST, E_BROKER_LOST, E_EXIT_ACKED,
	E_TICK, E_TICK_LATE, E_MAX
};

static const char *const evname[E_MAX] = {
	"begin", "spawned", "spawned, owner here", "refused",
	"refused (node)", "exited", "launch pad gone", "parent: unknown",
	"owner back", "owner away", "stop", "vacate", "job ended",
	"job manager lost", "broker lost", "exit acknowledged", "tick",
	"tick, every timeout over"
};

static struct nw_step
apply(struct nw *w, enum ev e)
{
	switch (e) {
	case E_BEGIN:		return nw_begin(w, 0, T_EV);
	case E_SPAWNED:		return nw_spawned(w, &conf, 0, T_EV);
	case E_SPAWNED_STOP:	return nw_spawned(w, &conf, 1, T_EV);
	case E_REFUSED:		return nw_refused(w, 0, T_EV);
	case E_REFUSED_NODE:	return nw_refused(w, 1, T_EV);
	case E_EXITED:		return nw_exited(w, T_EV);
	case E_PAD_GONE:	return nw_pad_gone(w, T_EV);
	case E_UNKNOWN:		return nw_unknown(w, T_EV);
	case E_OWNER_BACK:	return nw_owner_back(w, &conf, T_EV);
	case E_OWNER_AWAY:	return nw_owner_away(w, T_EV);
	case E_STOP:		return nw_stop(w, &conf, T_EV);
	case E_VACATE:		return nw_vacate(w, &conf, T_EV);
	case E_JOB_ENDED:	return nw_job_ended(w, &conf, T_EV);
	case E_JOBMGR_LOST:	return nw_jobmgr_lost(w, &conf, T_EV);
	case E_BROKER_LOST:	return nw_broker_lost(w, T_EV);
	case E_EXIT_ACKED:	return nw_exit_acked(w, T_EV);
	case E_TICK:		return nw_tick(w, &conf, T_EV, T_EV);
	default:		return nw_tick(w, &conf, 0, T_LATE);
	}
}

/* Short names for the table. */
#define NONE	NW_A_NONE
#define CLAIM	NW_A_CLAIM
#define FREEZE	NW_A_FREEZE
#define THAW	NW_A_THAW
#define STOP	NW_A_STOP
#define VACATE	NW_A_VACATE
#define KILL	NW_A_KILL
#define RECORD	NW_A_RECORD
#define STARTED	NW_A_STARTED
#define NEVER	NW_A_NEVER_RAN
#define NFAULT	NW_A_NODE_FAULT
#define FREE	NW_A_FREE_SLOT
#define STATE	NW_A_STATE
#define FORGET	NW_A_FORGET
#define RELAY	NW_A_RELAY
#define DROP	NW_A_DROP
#define UP	(RECORD | STARTED | STATE)	/* it runs */
#define OVER	(FREE | STATE | RELAY)		/* it ended */

static const struct row {
	enum nw_state	 from;
	double		 susp;
	enum ev		 ev;
	enum nw_state	 to;
	unsigned	 act;
} table[] = {
	/* NONE: only a beginning means anything. */
	{ NW_NONE, 0, E_BEGIN, NW_STARTING, CLAIM | STATE },
	{ NW_NONE, 0, E_SPAWNED, NW_NONE, NONE },
	{ NW_NONE, 0, E_SPAWNED_STOP, NW_NONE, NONE },
	{ NW_NONE, 0, E_REFUSED, NW_NONE, NONE },
	{ NW_NONE, 0, E_REFUSED_NODE, NW_NONE, NONE },
	{ NW_NONE, 0, E_EXITED, NW_NONE, NONE },
	{ NW_NONE, 0, E_PAD_GONE, NW_NONE, NONE },
	{ NW_NONE, 0, E_UNKNOWN, NW_NONE, NONE },
	{ NW_NONE, 0, E_OWNER_BACK, NW_NONE, NONE },
	{ NW_NONE, 0, E_OWNER_AWAY, NW_NONE, NONE },
	{ NW_NONE, 0, E_STOP, NW_NONE, NONE },
	{ NW_NONE, 0, E_VACATE, NW_NONE, NONE },
	{ NW_NONE, 0, E_JOB_ENDED, NW_NONE, NONE },
	{ NW_NONE, 0, E_JOBMGR_LOST, NW_NONE, NONE },
	{ NW_NONE, 0, E_BROKER_LOST, NW_NONE, NONE },
	{ NW_NONE, 0, E_EXIT_ACKED, NW_NONE, NONE },
	{ NW_NONE, 0, E_TICK, NW_NONE, NONE },
	{ NW_NONE, 0, E_TICK_LATE, NW_NONE, NONE },

	/* STARTING */
	{ NW_STARTING, 0, E_BEGIN, NW_STARTING, NONE },
	{ NW_STARTING, 0, E_SPAWNED, NW_RUNNING, UP },
	{ NW_STARTING, 0, E_SPAWNED_STOP, NW_STOPPING, UP | STOP },
	{ NW_STARTING, 0, E_REFUSED, NW_EXITED, NEVER | OVER },
	{ NW_STARTING, 0, E_REFUSED_NODE, NW_EXITED, NEVER | NFAULT | OVER },
	{ NW_STARTING, 0, E_EXITED, NW_EXITED, NEVER | NFAULT | OVER },
	{ NW_STARTING, 0, E_PAD_GONE, NW_EXITED, NEVER | NFAULT | OVER },
	{ NW_STARTING, 0, E_UNKNOWN, NW_EXITED, NEVER | NFAULT | OVER },
	{ NW_STARTING, 0, E_OWNER_BACK, NW_STARTING, STATE },
	{ NW_STARTING, SUSPEND, E_OWNER_BACK, NW_STARTING, STATE },
	{ NW_STARTING, 0, E_OWNER_AWAY, NW_STARTING, NONE },
	{ NW_STARTING, 0, E_STOP, NW_STARTING, STATE },
	{ NW_STARTING, 0, E_VACATE, NW_STARTING, STATE },
	{ NW_STARTING, 0, E_JOB_ENDED, NW_STARTING, STATE },
	{ NW_STARTING, 0, E_JOBMGR_LOST, NW_STARTING, NONE },
	{ NW_STARTING, 0, E_BROKER_LOST, NW_STARTING, NONE },
	{ NW_STARTING, 0, E_EXIT_ACKED, NW_STARTING, NONE },
	{ NW_STARTING, 0, E_TICK, NW_STARTING, NONE },
	/* The start timeout: it never ran, for the node's reason. */
	{ NW_STARTING, 0, E_TICK_LATE, NW_EXITED, NEVER | NFAULT | OVER },

	/* RUNNING */
	{ NW_RUNNING, 0, E_BEGIN, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_SPAWNED, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_SPAWNED_STOP, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_REFUSED, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_REFUSED_NODE, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_EXITED, NW_EXITED, OVER },
	{ NW_RUNNING, 0, E_PAD_GONE, NW_EXITED, OVER },
	{ NW_RUNNING, 0, E_UNKNOWN, NW_EXITED, OVER },
	{ NW_RUNNING, 0, E_OWNER_BACK, NW_STOPPING, VACATE | STATE },
	{ NW_RUNNING, SUSPEND, E_OWNER_BACK, NW_SUSPENDED, FREEZE | STATE },
	{ NW_RUNNING, 0, E_OWNER_AWAY, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_STOP, NW_STOPPING, STOP | STATE },
	{ NW_RUNNING, 0, E_VACATE, NW_STOPPING, VACATE | STATE },
	{ NW_RUNNING, 0, E_JOB_ENDED, NW_STOPPING, STOP | STATE },
	{ NW_RUNNING, 0, E_JOBMGR_LOST, NW_STOPPING, STOP | STATE },
	{ NW_RUNNING, 0, E_BROKER_LOST, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_EXIT_ACKED, NW_RUNNING, NONE },
	{ NW_RUNNING, 0, E_TICK, NW_RUNNING, RELAY },
	{ NW_RUNNING, 0, E_TICK_LATE, NW_RUNNING, RELAY },

	/* SUSPENDED (thaw_by: 2 + SUSPEND) */
	{ NW_SUSPENDED, SUSPEND, E_BEGIN, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_SPAWNED, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_SPAWNED_STOP, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_REFUSED, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_REFUSED_NODE, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_EXITED, NW_EXITED, OVER },
	{ NW_SUSPENDED, SUSPEND, E_PAD_GONE, NW_EXITED, OVER },
	{ NW_SUSPENDED, SUSPEND, E_UNKNOWN, NW_EXITED, OVER },
	{ NW_SUSPENDED, SUSPEND, E_OWNER_BACK, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_OWNER_AWAY, NW_RUNNING, THAW | STATE },
	/* Stopped: the parent thaws it for its SIGQUIT. */
	{ NW_SUSPENDED, SUSPEND, E_STOP, NW_STOPPING, STOP | STATE },
	{ NW_SUSPENDED, SUSPEND, E_VACATE, NW_STOPPING, VACATE | STATE },
	{ NW_SUSPENDED, SUSPEND, E_JOB_ENDED, NW_STOPPING, STOP | STATE },
	{ NW_SUSPENDED, SUSPEND, E_JOBMGR_LOST, NW_STOPPING, STOP | STATE },
	{ NW_SUSPENDED, SUSPEND, E_BROKER_LOST, NW_SUSPENDED, NONE },
	{ NW_SUSPENDED, SUSPEND, E_EXIT_ACKED, NW_SUSPENDED, NONE },
	/* At T_EV (10) its 5 s since 2 are over: it goes, frozen if slow. */
	{ NW_SUSPENDED, SUSPEND, E_TICK, NW_STOPPING, VACATE | STATE | RELAY },
	{ NW_SUSPENDED, SUSPEND, E_TICK_LATE, NW_STOPPING,
	    VACATE | STATE | RELAY },

	/* STOPPING (an ordinary stop, not for the owner) */
	{ NW_STOPPING, 0, E_BEGIN, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_SPAWNED, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_SPAWNED_STOP, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_REFUSED, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_REFUSED_NODE, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_EXITED, NW_EXITED, OVER },
	{ NW_STOPPING, 0, E_PAD_GONE, NW_EXITED, OVER },
	{ NW_STOPPING, 0, E_UNKNOWN, NW_EXITED, OVER },
	/* The owner back: the stop is hurried (VACATE). */
	{ NW_STOPPING, 0, E_OWNER_BACK, NW_STOPPING, VACATE },
	{ NW_STOPPING, 0, E_OWNER_AWAY, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_STOP, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_VACATE, NW_STOPPING, VACATE },
	{ NW_STOPPING, 0, E_JOB_ENDED, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_JOBMGR_LOST, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_BROKER_LOST, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_EXIT_ACKED, NW_STOPPING, NONE },
	{ NW_STOPPING, 0, E_TICK, NW_STOPPING, RELAY },
	/* The stop limit: the parent is told to kill what is left. */
	{ NW_STOPPING, 0, E_TICK_LATE, NW_STOPPING, KILL | RELAY },

	/* EXITED: relayed until acknowledged; nothing else changes it. */
	{ NW_EXITED, 0, E_BEGIN, NW_EXITED, NONE },
	/* A late SPAWNED for it: what the parent started is killed. */
	{ NW_EXITED, 0, E_SPAWNED, NW_EXITED, KILL },
	{ NW_EXITED, 0, E_SPAWNED_STOP, NW_EXITED, KILL },
	{ NW_EXITED, 0, E_REFUSED, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_REFUSED_NODE, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_EXITED, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_PAD_GONE, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_UNKNOWN, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_OWNER_BACK, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_OWNER_AWAY, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_STOP, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_VACATE, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_JOB_ENDED, NW_GONE, DROP },
	{ NW_EXITED, 0, E_JOBMGR_LOST, NW_GONE, DROP },
	{ NW_EXITED, 0, E_BROKER_LOST, NW_EXITED, NONE },
	{ NW_EXITED, 0, E_EXIT_ACKED, NW_EXITED, RELAY },
	{ NW_EXITED, 0, E_TICK, NW_EXITED, RELAY },
	/* Its job manager silent since 0: dropped. */
	{ NW_EXITED, 0, E_TICK_LATE, NW_GONE, DROP },

	/* GONE: nothing brings it back, nothing is asked of anyone. */
	{ NW_GONE, 0, E_BEGIN, NW_GONE, NONE },
	{ NW_GONE, 0, E_SPAWNED, NW_GONE, KILL },
	{ NW_GONE, 0, E_SPAWNED_STOP, NW_GONE, KILL },
	{ NW_GONE, 0, E_REFUSED, NW_GONE, NONE },
	{ NW_GONE, 0, E_REFUSED_NODE, NW_GONE, NONE },
	{ NW_GONE, 0, E_EXITED, NW_GONE, NONE },
	{ NW_GONE, 0, E_PAD_GONE, NW_GONE, NONE },
	{ NW_GONE, 0, E_UNKNOWN, NW_GONE, NONE },
	{ NW_GONE, 0, E_OWNER_BACK, NW_GONE, NONE },
	{ NW_GONE, 0, E_OWNER_AWAY, NW_GONE, NONE },
	{ NW_GONE, 0, E_STOP, NW_GONE, NONE },
	{ NW_GONE, 0, E_VACATE, NW_GONE, NONE },
	{ NW_GONE, 0, E_JOB_ENDED, NW_GONE, NONE },
	{ NW_GONE, 0, E_JOBMGR_LOST, NW_GONE, NONE },
	{ NW_GONE, 0, E_BROKER_LOST, NW_GONE, NONE },
	{ NW_GONE, 0, E_EXIT_ACKED, NW_GONE, NONE },
	{ NW_GONE, 0, E_TICK, NW_GONE, NONE },
	{ NW_GONE, 0, E_TICK_LATE, NW_GONE, NONE },
};

static void
test_fixtures(void)
{
	enum nw_state s;
	struct nw w;

	for (s = NW_NONE; s < NW_STATE_MAX; s++) {
		w = fixture(s, s == NW_SUSPENDED ? SUSPEND : 0);
		ok(w.nw_state == s, "fixture reaches %s", nw_state_name(s));
	}
}

/* Every event in every state: the table covers each pair. */
static void
test_table(void)
{
	int seen[NW_STATE_MAX][E_MAX] = { { 0 } };
	const struct row *r;
	struct nw_step st;
	struct nw w;
	size_t i;
	int s, e, missing = 0;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		r = &table[i];
		seen[r->from][r->ev] = 1;
		w = fixture(r->from, r->susp);
		st = apply(&w, r->ev);
		ok(st.ns_state == r->to && w.nw_state == r->to &&
		    st.ns_act == r->act, "%s%s, %s: %s, actions %#x "
		    "(got %s, %#x)", nw_state_name(r->from),
		    r->susp > 0 ? " (suspendable)" : "", evname[r->ev],
		    nw_state_name(r->to), r->act, nw_state_name(st.ns_state),
		    st.ns_act);
	}
	for (s = 0; s < NW_STATE_MAX; s++)
		for (e = 0; e < E_MAX; e++)
			if (!seen[s][e]) {
				missing++;
				printf("# no row for %s, %s\n",
				    nw_state_name((enum nw_state)s), evname[e]);
			}
	ok(missing == 0, "every (state, event) pair has a row (%d missing)",
	    missing);
}

/*
 * The race of issue 26: the engine asks the parent to stop a worker
 * whose launch pad the parent has already lost and forgotten; the
 * parent answers "unknown" (a WORKER, exited), and the engine forgets
 * it too; the engine's FORGET is answered by nothing, and any further
 * word about it changes nothing.
 */
static void
test_race_unknown(void)
{
	struct nw w = fixture(NW_RUNNING, 0);
	struct nw_step st;

	st = nw_stop(&w, &conf, 11);
	ok(st.ns_state == NW_STOPPING && (st.ns_act & NW_A_STOP),
	    "race: the engine asks the parent to stop it");
	st = nw_unknown(&w, 11.1);
	ok(st.ns_state == NW_EXITED && st.ns_act == (NW_A_FREE_SLOT |
	    NW_A_STATE | NW_A_RELAY),
	    "race: the parent's \"unknown\" ends it: its processor free, "
	    "its job manager told");
	st = nw_unknown(&w, 11.2);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_NONE,
	    "race: a second \"unknown\" changes nothing");
	st = nw_pad_gone(&w, 11.3);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_NONE,
	    "race: the launch pad's end, told late, changes nothing");
	st = nw_exit_acked(&w, 12);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_RELAY &&
	    w.nw_exit_acked, "race: its exit acknowledged, it is relayed "
	    "and goes");
	st = nw_jobmgr_lost(&w, &conf, 13);
	ok(st.ns_state == NW_GONE && st.ns_act == NW_A_DROP,
	    "race: dropped");
	st = nw_unknown(&w, 14);
	ok(st.ns_state == NW_GONE && st.ns_act == NW_A_NONE,
	    "race: \"unknown\" for a dropped one: nothing asked back "
	    "(no FORGET echo)");
}

/* Events that cross on their way, in both orders. */
static void
test_crossing(void)
{
	struct nw_conf slow = conf;
	struct nw w;
	struct nw_step st;

	/* An exit arriving while the stop is on its way. */
	w = fixture(NW_RUNNING, 0);
	(void)nw_stop(&w, &conf, 11);
	st = nw_exited(&w, 11.5);
	ok(st.ns_state == NW_EXITED && st.ns_act == (NW_A_FREE_SLOT |
	    NW_A_STATE | NW_A_RELAY), "exit during stop: relayed once");
	st = nw_stop(&w, &conf, 12);
	ok(st.ns_act == NW_A_NONE, "stop after exit: nothing to stop");
	/* ... and the exit before the stop. */
	w = fixture(NW_RUNNING, 0);
	(void)nw_exited(&w, 11);
	st = nw_stop(&w, &conf, 11.5);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_NONE,
	    "stop crossing an exit: no STOP for a worker gone");

	/* The owner back while it starts: it goes once up, frozen fast. */
	w = fixture(NW_STARTING, SUSPEND);
	st = nw_owner_back(&w, &conf, 11);
	ok(st.ns_state == NW_STARTING && w.nw_stop_pending && w.nw_vacate == 1,
	    "owner back during start: a stop pending, for the owner");
	st = nw_owner_away(&w, 12);
	ok(st.ns_act == NW_A_NONE && w.nw_stop_pending,
	    "owner away again before it is up: still to be stopped");
	st = nw_spawned(&w, &conf, 0, 13);
	ok(st.ns_state == NW_STOPPING && (st.ns_act & NW_A_VACATE) &&
	    (st.ns_act & NW_A_RECORD) && (st.ns_act & NW_A_STARTED) &&
	    !(st.ns_act & NW_A_STOP), "owner back during start: VACATE once "
	    "up (recorded, its start counted)");
	w = fixture(NW_STARTING, 0);
	(void)nw_owner_back(&w, &slow, 11);
	slow.nc_fast = 0;
	st = nw_spawned(&w, &slow, 0, 12);
	ok(st.ns_state == NW_STOPPING && (st.ns_act & NW_A_STOP) &&
	    !(st.ns_act & NW_A_VACATE),
	    "... a STOP where stop_grace_fast is not shorter");

	/* The launch pad gone before SPAWNED: never ran; SPAWNED late. */
	w = fixture(NW_STARTING, 0);
	st = nw_pad_gone(&w, 11);
	ok(st.ns_state == NW_EXITED && (st.ns_act & NW_A_NEVER_RAN) &&
	    (st.ns_act & NW_A_NODE_FAULT), "pad gone before started: never "
	    "ran, the node's fault");
	st = nw_spawned(&w, &conf, 0, 12);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_KILL,
	    "SPAWNED after that: what the parent started is killed");

	/* The job ended while suspended: stopped, its exit dropped. */
	w = fixture(NW_SUSPENDED, SUSPEND);
	st = nw_job_ended(&w, &conf, 3);
	ok(st.ns_state == NW_STOPPING && (st.ns_act & NW_A_STOP) &&
	    w.nw_thaw_by == 0, "job ended while suspended: stopped "
	    "(thawed by the parent), its suspension over");
	st = nw_tick(&w, &conf, 3, 20);
	ok(st.ns_state == NW_STOPPING && st.ns_act == NW_A_RELAY,
	    "... its suspension's end, later, changes nothing");
	st = nw_exited(&w, 21);
	ok(st.ns_state == NW_GONE && st.ns_act == (NW_A_FREE_SLOT |
	    NW_A_STATE | NW_A_DROP), "... its exit: nobody to tell, dropped");
	/* The job ended while it started. */
	w = fixture(NW_STARTING, 0);
	(void)nw_job_ended(&w, &conf, 1);
	st = nw_spawned(&w, &conf, 0, 2);
	ok(st.ns_state == NW_STOPPING && (st.ns_act & NW_A_STOP),
	    "job ended during start: stopped once up");
	/* The job ended after the exit, before the acknowledgement. */
	w = fixture(NW_EXITED, 0);
	st = nw_job_ended(&w, &conf, 5);
	ok(st.ns_state == NW_GONE && st.ns_act == NW_A_DROP,
	    "job ended after the exit: dropped");

	/* The start timeout after the exit (or the refusal): nothing. */
	w = fixture(NW_STARTING, 0);
	(void)nw_refused(&w, 0, 1);
	st = nw_tick(&w, &conf, 60, 61);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_RELAY,
	    "start timeout after a refusal: no second end");
	w = fixture(NW_STARTING, 0);
	(void)nw_pad_gone(&w, 1);
	st = nw_tick(&w, &conf, 1, 70);
	ok(!(st.ns_act & NW_A_NEVER_RAN), "start timeout after the launch "
	    "pad's end: not counted twice");
	/* The start timeout, then the parent's SPAWNED. */
	w = fixture(NW_STARTING, 0);
	st = nw_tick(&w, &conf, 0, 59.9);
	ok(st.ns_state == NW_STARTING && st.ns_act == NW_A_NONE,
	    "start: before start_timeout, nothing");
	st = nw_tick(&w, &conf, 0, 60);
	ok(st.ns_state == NW_EXITED && (st.ns_act & NW_A_NODE_FAULT),
	    "start: at start_timeout, never ran (the node's fault)");
	st = nw_spawned(&w, &conf, 0, 61);
	ok(st.ns_act == NW_A_KILL, "... SPAWNED after it: killed");
	slow = conf;
	slow.nc_start_timeout = 0;
	w = fixture(NW_STARTING, 0);
	st = nw_tick(&w, &slow, 0, 1e9);
	ok(st.ns_state == NW_STARTING, "start_timeout 0: no timeout");

	/* The owner back during a stop, twice: hurried once. */
	w = fixture(NW_STOPPING, 0);
	st = nw_owner_back(&w, &conf, 3);
	ok(st.ns_act == NW_A_VACATE && w.nw_vacate == 2,
	    "owner back during a stop: VACATE");
	st = nw_owner_back(&w, &conf, 4);
	ok(st.ns_act == NW_A_NONE, "... again: once is enough");

	/* The owner back, then away within the suspension. */
	w = fixture(NW_RUNNING, SUSPEND);
	(void)nw_owner_back(&w, &conf, 2);
	ok(w.nw_thaw_by == 2 + SUSPEND, "suspended for its owner_return");
	st = nw_owner_away(&w, 3);
	ok(st.ns_state == NW_RUNNING && st.ns_act == (NW_A_THAW | NW_A_STATE),
	    "owner away within the suspension: thawed");
	st = nw_tick(&w, &conf, 3, 100);
	ok(st.ns_state == NW_RUNNING && st.ns_act == NW_A_RELAY,
	    "... its old end of suspension changes nothing");
	/* suspend_max bounds it; allow_suspend no vacates. */
	w = fixture(NW_RUNNING, 1e6);
	(void)nw_owner_back(&w, &conf, 2);
	ok(w.nw_state == NW_SUSPENDED && w.nw_thaw_by == 2 + 100,
	    "suspend_max bounds the suspension");
	slow = conf;
	slow.nc_allow_suspend = 0;
	w = fixture(NW_RUNNING, SUSPEND);
	st = nw_owner_back(&w, &slow, 2);
	ok(st.ns_state == NW_STOPPING && (st.ns_act & NW_A_VACATE),
	    "allow_suspend no: vacated");

	/* An exit during the stop limit's kill. */
	w = fixture(NW_STOPPING, 0);
	st = nw_tick(&w, &conf, 2, 51.9);
	ok(st.ns_act == NW_A_RELAY, "stop: before the stop limit, relayed");
	st = nw_tick(&w, &conf, 2, 52);
	ok(st.ns_act == (NW_A_KILL | NW_A_RELAY), "stop: at the limit, "
	    "killed");
	st = nw_tick(&w, &conf, 2, 60);
	ok(st.ns_act == NW_A_RELAY, "... once");
	st = nw_exited(&w, 60.5);
	ok(st.ns_state == NW_EXITED && (st.ns_act & NW_A_RELAY),
	    "... its exit relayed");

	/* The broker lost changes nothing anywhere. */
	w = fixture(NW_RUNNING, 0);
	st = nw_broker_lost(&w, 5);
	ok(st.ns_state == NW_RUNNING && st.ns_act == NW_A_NONE,
	    "broker lost: a worker goes on");

	/* An exit acknowledged, then the job manager silent: dropped. */
	w = fixture(NW_EXITED, 0);
	(void)nw_exit_acked(&w, 4);
	st = nw_tick(&w, &conf, 4, 10);
	ok(st.ns_state == NW_EXITED && st.ns_act == NW_A_RELAY,
	    "exited: relayed while its job manager answers");
	st = nw_tick(&w, &conf, 4, 34.5);
	ok(st.ns_state == NW_GONE && st.ns_act == NW_A_DROP,
	    "exited: dropped once its job manager is silent too long");
}

/* After the engine's restart: the parent names the workers it kept. */
static void
test_adopted(void)
{
	static const struct {
		enum nw_parent p;
		int rec, free, stop;
		enum nw_state to;
		unsigned act;
		const char *what;
	} t[] = {
		{ NW_P_RUNNING, 0, 1, 0, NW_GONE, STOP | FORGET,
		    "no record: stopped and forgotten" },
		{ NW_P_FROZEN, 0, 1, 1, NW_GONE, STOP | FORGET,
		    "no record, frozen: stopped and forgotten" },
		{ NW_P_EXITED, 0, 1, 0, NW_GONE, FORGET,
		    "no record, exited: forgotten" },
		{ NW_P_EXITED, 1, 1, 0, NW_EXITED, RELAY,
		    "exited: its exit relayed" },
		{ NW_P_EXITED, 1, 0, 1, NW_EXITED, RELAY,
		    "exited, its processor taken: its exit relayed" },
		{ NW_P_RUNNING, 1, 0, 0, NW_STOPPING, STOP,
		    "its processor runs another: retired" },
		{ NW_P_RUNNING, 1, 1, 0, NW_RUNNING, CLAIM | STATE,
		    "running, owner away: runs on" },
		{ NW_P_FROZEN, 1, 1, 0, NW_RUNNING, CLAIM | STATE | THAW,
		    "frozen, owner away: thawed" },
		{ NW_P_RUNNING, 1, 1, 1, NW_STOPPING,
		    CLAIM | STATE | VACATE, "running, owner here: vacated" },
		{ NW_P_FROZEN, 1, 1, 1, NW_STOPPING,
		    CLAIM | STATE | VACATE, "frozen, owner here: vacated "
		    "(the parent thaws it to stop it)" },
	};
	struct nw w;
	struct nw_step st;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		w = fixture(NW_NONE, 0);
		st = nw_adopted(&w, &conf, t[i].p, t[i].rec, t[i].free,
		    t[i].stop, 1);
		ok(st.ns_state == t[i].to && w.nw_state == t[i].to &&
		    st.ns_act == t[i].act, "adopted: %s (got %s, %#x)",
		    t[i].what, nw_state_name(st.ns_state), st.ns_act);
	}
	w = fixture(NW_RUNNING, 0);
	st = nw_adopted(&w, &conf, NW_P_RUNNING, 1, 1, 0, 1);
	ok(st.ns_state == NW_RUNNING && st.ns_act == NW_A_NONE,
	    "adopted twice: the second changes nothing");
}

static void
test_names(void)
{
	ok(nw_up(NW_RUNNING) && nw_up(NW_SUSPENDED) && !nw_up(NW_STOPPING) &&
	    !nw_up(NW_STARTING), "up: running or suspended");
	ok(nw_holds(NW_STARTING) && nw_holds(NW_STOPPING) &&
	    !nw_holds(NW_EXITED) && !nw_holds(NW_NONE) && !nw_holds(NW_GONE),
	    "holds: starting to stopping");
	ok(strcmp(nw_state_name(NW_SUSPENDED), "suspended") == 0 &&
	    strcmp(nw_state_name((enum nw_state)99), "?") == 0, "names");
}

int
main(void)
{
	test_fixtures();
	test_table();
	test_race_unknown();
	test_crossing();
	test_adopted();
	test_names();
	return tap_done();
}
