/*
 * nodeworker — one guest worker's life on a node manager, as a pure
 * state machine: no I/O, no clock (the time is passed in), no globals.
 * The engine (daemons/CilkNodeManager: wevents.c, worker.c) keeps one
 * struct nw in each worker's record, calls the function of every event
 * that reaches it, and performs the actions the function returns
 * (node_worker_act, worker.c): it is the I/O around this, and keeps no
 * idea of the worker's state of its own.
 *
 *	NONE ──begin──> STARTING ──spawned──> RUNNING <──owner away──┐
 *	                 │  │                  │  │                  │
 *	        refused, │  │ stop: pending    │  └──owner back──> SUSPENDED
 *	   start timeout │  └──(once up)──┐    │ stop, job ended,    │ thaw_by
 *	                 │                v    v job manager lost    │ passed
 *	                 │               STOPPING <──────────────────┘
 *	                 v                  │ exited, launch pad gone,
 *	               EXITED <─────────────┘ parent: "unknown"
 *	                 │ exit acknowledged, job ended, job manager lost
 *	                 v
 *	               GONE (the record is freed)
 *
 * RUNNING and SUSPENDED exit to EXITED directly as well.  A worker
 * adopted after the engine's restart starts from NONE (nw_adopted).
 * Every function takes any state: an event that means nothing in a
 * state (a second exit, a late answer, a stop of a worker already
 * gone) returns NW_A_NONE and leaves the record as it was, so events
 * that cross on their way (the parent forgets a worker while the
 * engine asks about it) are harmless.
 */
#ifndef CILKNOW_NODEWORKER_H
#define CILKNOW_NODEWORKER_H

#include <stdint.h>

enum nw_state {
	NW_NONE = 0,		/* not started yet */
	NW_STARTING,		/* its files fetched, or the parent asked */
	NW_RUNNING,
	NW_SUSPENDED,		/* frozen: the owner is back for a while */
	NW_STOPPING,		/* the parent was told to stop it */
	NW_EXITED,		/* over; its output and exit being relayed */
	NW_GONE,		/* its record may be freed */
	NW_STATE_MAX
};

/* What the engine does, in this order (a bitmask). */
#define NW_A_NONE	0x0000u
#define NW_A_CLAIM	0x0001u	/* it is its processor's worker now */
#define NW_A_FREEZE	0x0002u	/* the parent: FREEZE 1 */
#define NW_A_THAW	0x0004u	/* the parent: FREEZE 0 */
#define NW_A_STOP	0x0008u	/* the parent: STOP, stop_grace */
#define NW_A_VACATE	0x0010u	/* the parent: VACATE (the owner is back) */
#define NW_A_KILL	0x0020u	/* the parent: FORGET (kills what is left) */
#define NW_A_RECORD	0x0040u	/* write its record, for adoption */
#define NW_A_STARTED	0x0080u	/* count the start; tell its job manager */
#define NW_A_NEVER_RAN	0x0100u	/* its job manager hears why it did not */
#define NW_A_NODE_FAULT	0x0200u	/* ... for the node's reason */
#define NW_A_FREE_SLOT	0x0400u	/* its processor is free for the next */
#define NW_A_STATE	0x0800u	/* the node's state may have changed */
#define NW_A_FORGET	0x1000u	/* the parent: FORGET, nothing else */
#define NW_A_RELAY	0x2000u	/* relay its output and exit now */
#define NW_A_DROP	0x4000u	/* free the record (FORGET with it) */

/* What the engine decides by, from its configuration. */
struct nw_conf {
	int		 nc_fast;	/* stop_grace_fast < stop_grace: a
					   worker the owner wants gone gets
					   VACATE, not STOP */
	int		 nc_allow_suspend;	/* allow_suspend */
	double		 nc_suspend_max;	/* suspend_max, s */
	double		 nc_start_timeout;	/* start_timeout, s; 0 none */
	double		 nc_stop_limit;	/* s a stopping worker has before
					   the parent is told to kill it; 0
					   none */
	double		 nc_silence;	/* s an exited worker's job manager
					   may be silent before it is dropped */
};

struct nw {
	enum nw_state	 nw_state;
	double		 nw_since;	/* in this state since */
	double		 nw_thaw_by;	/* SUSPENDED: until then */
	double		 nw_suspend;	/* its job's owner_return: 0 vacate */
	int		 nw_stop_pending;	/* STARTING: stop once up */
	int		 nw_vacate;	/* the owner wants it gone: 1 asked,
					   2 VACATE sent */
	int		 nw_killed;	/* STOPPING: the kill was asked */
	int		 nw_job_gone;	/* nobody takes its output */
	int		 nw_exit_acked;	/* its job manager has its exit */
};

/* The result of an event: the state it left, what to do. */
struct nw_step {
	enum nw_state	 ns_state;
	unsigned	 ns_act;
};

/* Where an adopted worker's parent says it is. */
enum nw_parent {
	NW_P_RUNNING = 0,
	NW_P_FROZEN,
	NW_P_EXITED
};

const char	*nw_state_name(enum nw_state);
/* RUNNING or SUSPENDED: a worker that runs (or would, thawed). */
int		 nw_up(enum nw_state);
/* STARTING to STOPPING: it holds its processor and memory. */
int		 nw_holds(enum nw_state);

/* A fresh record, about to start (suspend: its job's owner_return). */
struct nw_step	 nw_begin(struct nw *, double suspend, double now);
/*
 * The parent's SPAWNED, ok: it runs.  stop: the owner is here now or
 * its processor is not lent, so it stops at once.
 */
struct nw_step	 nw_spawned(struct nw *, const struct nw_conf *, int stop,
		    double now);
/* The parent's SPAWNED, refused (node_fault: for the node's reason). */
struct nw_step	 nw_refused(struct nw *, int node_fault, double now);
/* The parent's WORKER, exited: the worker ended (its status is told). */
struct nw_step	 nw_exited(struct nw *, double now);
/* Its launch pad is gone: the parent killed what was left. */
struct nw_step	 nw_pad_gone(struct nw *, double now);
/*
 * The parent does not know the worker (it forgot it while we asked):
 * it is gone.  Never answered: a GONE or EXITED one is left alone.
 */
struct nw_step	 nw_unknown(struct nw *, double now);
/* The owner is back: frozen (its job allows), or it goes. */
struct nw_step	 nw_owner_back(struct nw *, const struct nw_conf *,
		    double now);
/* The owner is away again: a frozen worker goes on. */
struct nw_step	 nw_owner_away(struct nw *, double now);
/* Stop it (another job, the owner's load, leaving the cluster). */
struct nw_step	 nw_stop(struct nw *, const struct nw_conf *, double now);
/* The owner wants its processor: a stop, frozen if it lingers. */
struct nw_step	 nw_vacate(struct nw *, const struct nw_conf *, double now);
/* The broker says its job ended: it stops; its output has no taker. */
struct nw_step	 nw_job_ended(struct nw *, const struct nw_conf *,
		    double now);
/* Its job manager has been silent too long. */
struct nw_step	 nw_jobmgr_lost(struct nw *, const struct nw_conf *,
		    double now);
/*
 * The broker is silent: nothing changes.  A worker answers to its job
 * manager, which may still be there; the broker, back, says which jobs
 * ended (nw_job_ended).
 */
struct nw_step	 nw_broker_lost(struct nw *, double now);
/* Its job manager acknowledged its exit. */
struct nw_step	 nw_exit_acked(struct nw *, double now);
/*
 * After the engine's restart, the parent names a worker it kept.
 * have_record: the engine's record of it (its job manager) was read;
 * slot_free: its processor runs no other worker; stop: the owner is
 * here or its processor is not lent.
 */
struct nw_step	 nw_adopted(struct nw *, const struct nw_conf *,
		    enum nw_parent, int have_record, int slot_free, int stop,
		    double now);
/*
 * Time passed (each tick relays a worker's output: NW_A_RELAY from
 * RUNNING to EXITED): a suspension over (it goes), a start that took longer
 * than start_timeout (it never ran: the node's fault), a stop longer
 * than nc_stop_limit (killed), an exited worker whose job manager was
 * last heard at seen, longer ago than nc_silence (dropped).
 */
struct nw_step	 nw_tick(struct nw *, const struct nw_conf *, double seen,
		    double now);

#endif
