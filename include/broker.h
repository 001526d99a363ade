/*
 * broker — CilkJobBroker's state and its global scheduling, without
 * I/O: the registry of nodes and jobs (rebuilt from re-registrations;
 * what a restart keeps of it: broker_persist.h), expiry, and the rule that gives nodes to jobs:
 * a job that runs nowhere gets a node (taken from the largest job if no
 * node is free), and every free node goes to the job furthest below its
 * max-min fair share (so the first job goes to every available node).
 */
#ifndef CILKNOW_BROKER_H
#define CILKNOW_BROKER_H

#include <sys/queue.h>

#include <stdint.h>

#include "htab.h"
#include "proto.h"

/* One processor of a node, as it last said, and what we gave it. */
struct broker_slot {
	uint8_t		 bs_state;	/* enum proto_node_state */
	uint32_t	 bs_job;
	uint32_t	 bs_assigned;	/* job we told it to run, 0: none */
	double		 bs_assigned_at;
};

struct broker_node {
	TAILQ_ENTRY(broker_node) bn_entry;
	uint32_t	 bn_id;
	uint64_t	 bn_boot;
	struct msg_addr	 bn_addr;
	char		 bn_host[PROTO_HOST_MAX];
	uint8_t		 bn_state;	/* enum proto_node_state */
	uint32_t	 bn_job;
	uint32_t	 bn_load_milli;
	uint32_t	 bn_idle;
	uint16_t	 bn_users;
	uint32_t	 bn_pairs, bn_switches;
	double		 bn_seen;	/* now_mono() of last registration */
	double		 bn_before;	/* reloaded, not heard since: its
					   silence before this broker started
					   (broker_persist.h); else 0 */
	uint16_t	 bn_total;	/* processors */
	uint16_t	 bn_lent;	/* of them lent */
	uint32_t	 bn_mem_mb;	/* lendable memory */
	uint8_t		 bn_unenforced;	/* PROTO_LIMIT_* not enforced there */
	uint8_t		 bn_drain;	/* 1: drained, 2: down by itself;
					   takes no new work
					   (broker_health.h) */
	uint64_t	 bn_resumed_boot;	/* its NODE_DOWN resumed last: */
	uint32_t	 bn_resumed_gen;	/* its boot and number */
	uint16_t	 bn_nslots;	/* bn_slots in use ... */
	uint16_t	 bn_cap;	/* ... and allocated */
	struct broker_slot *bn_slots;
};

struct broker_job {
	TAILQ_ENTRY(broker_job) bj_entry;
	uint32_t	 bj_id;
	uint64_t	 bj_boot;
	char		 bj_user[MSG_NAME_MAX + 1];
	struct msg_addr	 bj_addr;
	uint32_t	 bj_max;
	uint32_t	 bj_pri;
	uint64_t	 bj_start_ms;
	char		 bj_command[PROTO_COMMAND_MAX];
	uint16_t	 bj_cpus;	/* processors one worker takes */
	uint32_t	 bj_mem_mb;	/* memory one worker needs */
	double		 bj_seen;
	double		 bj_registered;	/* first registration here */
	uint32_t	 bj_count;	/* processors running or assigned it */
	uint8_t		 bj_pending;	/* enum proto_pending, as last
					   scheduled */
};

TAILQ_HEAD(broker_node_list, broker_node);
TAILQ_HEAD(broker_job_list, broker_job);

/* What each table may hold at most (nodes_max, jobs_max). */
#define BROKER_NODES_MAX	100000
#define BROKER_JOBS_MAX		10000

struct broker {
	struct broker_node_list	 br_nodes;
	struct broker_job_list	 br_jobs;
	uint32_t		 br_nnodes, br_njobs;
	uint32_t		 br_nodes_max, br_jobs_max;
	struct htab		 br_node_by_id, br_node_by_addr;
	struct htab		 br_job_by_id;
	/* broker_schedule's per-job scratch, grown as jobs come. */
	double			*br_weights, *br_shares;
	uint32_t		*br_caps;
	uint32_t		 br_scratch;
	uint32_t		 br_next_node, br_next_job;
	double			 br_interval;	/* register_interval */
	uint32_t		 br_user_jobs;	/* user_jobs: per user */
	double			 br_assign_timeout;
	uint64_t		 br_epoch;	/* rises on every change */
	uint64_t		 br_members;	/* rises when a node joins or
						   leaves: list places hold */
};

/*
 * Called for every processor (node, slot) the scheduler gives a job;
 * room: the node is to stop other jobs' workers to make room for a
 * worker that takes several processors.
 */
typedef void	broker_assign_fn(struct broker_node *, uint16_t slot,
		    struct broker_job *, int room, void *);

void	broker_init(struct broker *, double register_interval);
void	broker_fini(struct broker *);

/*
 * A node registered from addr.  Gives it an id if it had none (or one
 * we do not know and cannot honour).  NULL on allocation failure or
 * when the node table is full (br_nodes_max).
 */
struct broker_node *broker_node_register(struct broker *,
	    const struct proto_node_reg *, const struct msg_addr *, double now);
#define BROKER_PRI_MAX	1000	/* priorities are 1 to this */

/*
 * A job registered by user from addr; one registered as new (job 0)
 * again with the same boot number is the job it made before.  NULL
 * with a reason when refused:
 * the id belongs to another user's job, the priority is outside 1 to
 * BROKER_PRI_MAX, the user has br_user_jobs jobs already (0: no limit),
 * or the table is full (br_jobs_max).
 */
struct broker_job *broker_job_register(struct broker *,
	    const struct proto_job_reg *, const char *user,
	    const struct msg_addr *, double now, const char **why);
/* 0, or -1 with a reason (unknown job, not the user's). */
int	broker_job_unregister(struct broker *, uint32_t job, const char *user,
	    const char **why);
/*
 * Job 0 unregistered: a job manager that gave up before it heard our
 * answer.  Removes user's jobs registered from addr; how many.
 */
int	broker_job_withdraw(struct broker *, const char *user,
	    const struct msg_addr *);
struct broker_job *broker_job_find(struct broker *, uint32_t);
/*
 * A record made elsewhere (broker_persist.h: reloaded at start) into the
 * tables.  -1 if its id (or a node's address) is taken, its id is 0, or
 * the table is full; next ids stay above it.
 */
int	broker_node_adopt(struct broker *, struct broker_node *);
int	broker_job_adopt(struct broker *, struct broker_job *);
/* The node registered from addr, or with this id; NULL if none. */
struct broker_node *broker_node_by_addr(struct broker *,
	    const struct msg_addr *);
struct broker_node *broker_node_find(struct broker *, uint32_t);

/*
 * Forgets nodes and jobs silent for 3 intervals; count forgotten.  fn
 * (may be NULL) hears of each first, node or job, and its silence.
 */
typedef void	broker_gone_fn(const struct broker_node *,
		    const struct broker_job *, double silent, void *);
int	broker_expire(struct broker *, double now, broker_gone_fn *fn,
	    void *arg);

/* Counts the processors running or assigned each job (bj_count). */
void	broker_recount(struct broker *, double now);
/* Recounts, then assigns free nodes; returns how many it assigned. */
int	broker_schedule(struct broker *, double now, broker_assign_fn *,
	    void *);

/*
 * A node not heard from for more than BROKER_QUIET register intervals
 * (and at least an interval and a second, for a registration a little
 * late on a loaded host, but at most two intervals) is given no new
 * work (its processors count only while they run a job), though it is
 * listed as it last said until broker_expire() forgets it after 3.
 */
#define BROKER_QUIET	1.25
int	broker_node_quiet(const struct broker *, const struct broker_node *,
	    double now);

/* 1 if the node can take a job now or runs one (not busy, not gone). */
int	broker_node_available(const struct broker_node *);
/* 1 if that processor of a node can take a job or runs one. */
int	broker_slot_available(const struct broker_slot *);
/* The job a processor counts for: what we gave it, else what it runs. */
uint32_t broker_slot_job(const struct broker_slot *, double now,
	    double assign_timeout);
/*
 * 1 if a worker of j fits on n now: n lends the memory it needs and has
 * as many free processors (lent, idle, given nothing) as it takes.
 */
/* Its max in processors (a worker may take several); 0: no limit. */
uint32_t broker_job_cap(const struct broker_job *);
int	broker_job_fits(const struct broker *, const struct broker_node *,
	    const struct broker_job *, double now);
/* 1 if a worker of the job runs (or was given) on a processor of n. */
int	broker_node_runs(const struct broker_node *, uint32_t job);

#endif
