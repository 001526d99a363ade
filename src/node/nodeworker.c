/* nodeworker — a worker's life on a node manager, pure (nodeworker.h). */
#include "nodeworker.h"

#include <stddef.h>

static const char *const names[NW_STATE_MAX] = {
	"none", "starting", "running", "suspended", "stopping", "exited",
	"gone"
};

const char *
nw_state_name(enum nw_state s)
{
	return (unsigned)s < NW_STATE_MAX ? names[s] : "?";
}

int
nw_up(enum nw_state s)
{
	return s == NW_RUNNING || s == NW_SUSPENDED;
}

int
nw_holds(enum nw_state s)
{
	return s == NW_STARTING || nw_up(s) || s == NW_STOPPING;
}

static struct nw_step
step(const struct nw *w, unsigned act)
{
	struct nw_step st;

	st.ns_state = w->nw_state;
	st.ns_act = act;
	return st;
}

static void
enter(struct nw *w, enum nw_state s, double now)
{
	w->nw_state = s;
	w->nw_since = now;
}

/* What tells the parent to stop it: VACATE for the owner, if fast. */
static unsigned
stop_send(struct nw *w, const struct nw_conf *c)
{
	if (w->nw_vacate != 0 && c->nc_fast) {
		w->nw_vacate = 2;
		return NW_A_VACATE;
	}
	return NW_A_STOP;
}

/* RUNNING or SUSPENDED to STOPPING (the parent thaws it to stop it). */
static unsigned
stop_up(struct nw *w, const struct nw_conf *c, double now)
{
	enter(w, NW_STOPPING, now);
	w->nw_thaw_by = 0;
	return stop_send(w, c) | NW_A_STATE;
}

/* It is over: its processor is free, its job manager hears it. */
static struct nw_step
ended(struct nw *w, unsigned act, double now)
{
	int held = nw_holds(w->nw_state);

	enter(w, NW_EXITED, now);
	w->nw_thaw_by = 0;
	w->nw_stop_pending = 0;
	if (held)
		act |= NW_A_FREE_SLOT | NW_A_STATE;
	/* Nobody takes its output: its record goes (and the launch pad). */
	if (w->nw_job_gone) {
		enter(w, NW_GONE, now);
		return step(w, act | NW_A_DROP);
	}
	return step(w, act | NW_A_RELAY);
}

struct nw_step
nw_begin(struct nw *w, double suspend, double now)
{
	if (w->nw_state != NW_NONE)
		return step(w, NW_A_NONE);
	w->nw_suspend = suspend;
	enter(w, NW_STARTING, now);
	return step(w, NW_A_CLAIM | NW_A_STATE);
}

struct nw_step
nw_spawned(struct nw *w, const struct nw_conf *c, int stop, double now)
{
	unsigned act;

	if (w->nw_state != NW_STARTING)
		/* A late answer: what the parent started is not wanted. */
		return step(w, w->nw_state == NW_EXITED ||
		    w->nw_state == NW_GONE ? NW_A_KILL : NW_A_NONE);
	enter(w, NW_RUNNING, now);
	act = NW_A_RECORD | NW_A_STARTED | NW_A_STATE;
	if (w->nw_stop_pending || stop) {
		w->nw_stop_pending = 0;
		act |= stop_up(w, c, now);
	}
	return step(w, act);
}

struct nw_step
nw_refused(struct nw *w, int node_fault, double now)
{
	if (w->nw_state != NW_STARTING)
		return step(w, NW_A_NONE);
	return ended(w, NW_A_NEVER_RAN | (node_fault ? NW_A_NODE_FAULT : 0),
	    now);
}

struct nw_step
nw_exited(struct nw *w, double now)
{
	switch (w->nw_state) {
	case NW_STARTING:
		/* Its launch pad went before it was up: never ran. */
		return ended(w, NW_A_NEVER_RAN | NW_A_NODE_FAULT, now);
	case NW_RUNNING:
	case NW_SUSPENDED:
	case NW_STOPPING:
		return ended(w, NW_A_NONE, now);
	default:
		return step(w, NW_A_NONE);	/* told twice, or late */
	}
}

struct nw_step
nw_pad_gone(struct nw *w, double now)
{
	/* The parent killed what was left: an exit, by SIGKILL. */
	return nw_exited(w, now);
}

struct nw_step
nw_unknown(struct nw *w, double now)
{
	/* Gone without a word: as if killed.  Nothing is asked back. */
	return nw_exited(w, now);
}

struct nw_step
nw_owner_back(struct nw *w, const struct nw_conf *c, double now)
{
	double s;

	switch (w->nw_state) {
	case NW_STARTING:
		if (w->nw_stop_pending)
			return step(w, NW_A_NONE);
		w->nw_vacate = 1;
		w->nw_stop_pending = 1;
		return step(w, NW_A_STATE);
	case NW_RUNNING:
		if (w->nw_suspend > 0 && c->nc_allow_suspend) {
			s = w->nw_suspend < c->nc_suspend_max ?
			    w->nw_suspend : c->nc_suspend_max;
			enter(w, NW_SUSPENDED, now);
			w->nw_thaw_by = now + s;
			return step(w, NW_A_FREEZE | NW_A_STATE);
		}
		return nw_vacate(w, c, now);
	case NW_STOPPING:
		return nw_vacate(w, c, now);	/* hurried */
	default:
		/* A frozen worker waits for its time; the rest are over. */
		return step(w, NW_A_NONE);
	}
}

struct nw_step
nw_owner_away(struct nw *w, double now)
{
	if (w->nw_state != NW_SUSPENDED)
		return step(w, NW_A_NONE);
	enter(w, NW_RUNNING, now);
	w->nw_thaw_by = 0;
	return step(w, NW_A_THAW | NW_A_STATE);
}

struct nw_step
nw_stop(struct nw *w, const struct nw_conf *c, double now)
{
	switch (w->nw_state) {
	case NW_STARTING:
		w->nw_stop_pending = 1;
		return step(w, NW_A_STATE);
	case NW_RUNNING:
	case NW_SUSPENDED:
		return step(w, stop_up(w, c, now));
	default:
		return step(w, NW_A_NONE);
	}
}

struct nw_step
nw_vacate(struct nw *w, const struct nw_conf *c, double now)
{
	switch (w->nw_state) {
	case NW_STOPPING:
		/* Stopping for another reason, slowly: hurried, once. */
		if (w->nw_vacate == 2 || !c->nc_fast)
			return step(w, NW_A_NONE);
		w->nw_vacate = 1;
		return step(w, stop_send(w, c));
	case NW_STARTING:
	case NW_RUNNING:
	case NW_SUSPENDED:
		w->nw_vacate = 1;
		return nw_stop(w, c, now);
	default:
		return step(w, NW_A_NONE);
	}
}

struct nw_step
nw_job_ended(struct nw *w, const struct nw_conf *c, double now)
{
	w->nw_job_gone = 1;
	switch (w->nw_state) {
	case NW_EXITED:
		enter(w, NW_GONE, now);
		return step(w, NW_A_DROP);
	case NW_GONE:
		return step(w, NW_A_NONE);
	default:
		return nw_stop(w, c, now);
	}
}

struct nw_step
nw_jobmgr_lost(struct nw *w, const struct nw_conf *c, double now)
{
	switch (w->nw_state) {
	case NW_RUNNING:
	case NW_SUSPENDED:
		return nw_stop(w, c, now);
	case NW_EXITED:
		enter(w, NW_GONE, now);
		return step(w, NW_A_DROP);
	default:
		return step(w, NW_A_NONE);
	}
}

struct nw_step
nw_broker_lost(struct nw *w, double now)
{
	(void)now;
	return step(w, NW_A_NONE);
}

struct nw_step
nw_exit_acked(struct nw *w, double now)
{
	if (w->nw_state != NW_EXITED)
		return step(w, NW_A_NONE);
	w->nw_exit_acked = 1;
	(void)now;
	/* What is left to relay first, then the record goes (relay.c). */
	return step(w, NW_A_RELAY);
}

struct nw_step
nw_adopted(struct nw *w, const struct nw_conf *c, enum nw_parent p,
    int have_record, int slot_free, int stop, double now)
{
	unsigned act;

	if (w->nw_state != NW_NONE)
		return step(w, NW_A_NONE);
	if (!have_record) {
		/* Nobody to tell of it: it ends, and is forgotten. */
		enter(w, NW_GONE, now);
		return step(w, (p != NW_P_EXITED ? NW_A_STOP : 0) |
		    NW_A_FORGET);
	}
	if (p == NW_P_EXITED) {
		enter(w, NW_EXITED, now);
		return step(w, NW_A_RELAY);
	}
	if (!slot_free) {
		/* One worker a processor: any other is retired. */
		enter(w, NW_STOPPING, now);
		return step(w, NW_A_STOP);
	}
	enter(w, NW_RUNNING, now);
	act = NW_A_CLAIM | NW_A_STATE;
	/* Frozen when we went down: it goes on, or is stopped. */
	if (p == NW_P_FROZEN && !stop)
		act |= NW_A_THAW;
	if (stop) {
		w->nw_vacate = 1;
		act |= stop_up(w, c, now);
	}
	return step(w, act);
}

struct nw_step
nw_tick(struct nw *w, const struct nw_conf *c, double seen, double now)
{
	struct nw_step st;

	switch (w->nw_state) {
	case NW_STARTING:
		if (c->nc_start_timeout > 0 &&
		    now - w->nw_since >= c->nc_start_timeout)
			return ended(w, NW_A_NEVER_RAN | NW_A_NODE_FAULT, now);
		break;
	case NW_RUNNING:
		return step(w, NW_A_RELAY);	/* its output, as it comes */
	case NW_SUSPENDED:
		if (now < w->nw_thaw_by)
			return step(w, NW_A_RELAY);
		st = nw_vacate(w, c, now);
		st.ns_act |= NW_A_RELAY;
		return st;
	case NW_STOPPING:
		if (c->nc_stop_limit > 0 && !w->nw_killed &&
		    now - w->nw_since >= c->nc_stop_limit) {
			w->nw_killed = 1;
			return step(w, NW_A_KILL | NW_A_RELAY);
		}
		return step(w, NW_A_RELAY);
	case NW_EXITED:
		if (w->nw_job_gone || (c->nc_silence > 0 &&
		    now - seen > c->nc_silence)) {
			enter(w, NW_GONE, now);
			return step(w, NW_A_DROP);
		}
		return step(w, NW_A_RELAY);
	default:
		break;
	}
	return step(w, NW_A_NONE);
}
