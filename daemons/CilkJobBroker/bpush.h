/*
 * CilkJobBroker's pushes: what a node needs, not the whole cluster.
 * Each push carries every job's count (O(jobs), for the targeted rule
 * and to tell a node its job ended) and a random sample of available
 * peers (for the pairwise rule and for finding work while the broker is
 * silent), never the whole node list.  A node gets one in answer to
 * each registration, so its sample is refreshed every interval; every
 * node gets one when the jobs or their counts change, at most one round
 * per batch and no faster than PUSH_RATE nodes a second.  A node joining
 * without changing any job's count costs one push, to itself.
 */
#ifndef CILKJOBBROKER_BPUSH_H
#define CILKJOBBROKER_BPUSH_H

#include "broker.h"
#include "dctx.h"
#include "fairshare.h"

#define BPUSH_PEERS	32		/* peers in each node's sample */
#define BPUSH_RATE	20000.0		/* pushes a second, at most, in a
					   round to every node */

struct bpush {
	struct dctx		*bu_dc;
	struct broker		*bu_br;
	double			 bu_started;
	uint64_t		 bu_sig;	/* the jobs as last sent to all */
	double			 bu_next_all;	/* no round before this */
	struct evtimer		*bu_later;	/* the round put off */
	struct proto_push_job	*bu_jobs;
	uint32_t		 bu_njobs, bu_cap;
	struct sched_rng	 bu_rng;
	uint8_t			 bu_buf[MSG_PAYLOAD_MAX];
};

void	bpush_init(struct bpush *, struct dctx *, struct broker *);
void	bpush_fini(struct bpush *);
/* One node: the jobs and a fresh sample of peers. */
void	bpush_to(struct bpush *, const struct broker_node *);
/* After a schedule: if the jobs or counts changed, every node learns. */
void	bpush_changed(struct bpush *);

#endif
