/*
 * CilkJobBroker's listings for CilkPs, CilkNodes and CilkPred: LIST
 * (one datagram, the first PROTO_ROWS_MAX rows, for older tools) and
 * LIST_PAGE (a page from a place in the table on, filtered here; see
 * proto_page.h).  A page that goes on where the last one stopped starts
 * there, not at the head of the list, while no node has joined or left:
 * a whole listing costs O(rows).  A drained node shows as drain or
 * drained; the nodes down (forgotten, broker_health.h) come after the
 * registered ones, at the places after theirs; so do the job managers
 * waiting for --after (broker_wait.h) after the jobs.
 */
#ifndef CILKJOBBROKER_BLIST_H
#define CILKJOBBROKER_BLIST_H

#include "broker.h"
#include "broker_health.h"
#include "broker_wait.h"
#include "cookie.h"

struct blist {
	struct broker		*bl_br;
	struct cookie_key	*bl_cookie;
	/* Down nodes, listed after the registered ones (NULL: none). */
	const struct broker_health *bl_health;
	/* Job managers held by --after, after the jobs (NULL: none). */
	const struct broker_waits *bl_waits;
	/* Where the last node page stopped, while br_members holds. */
	uint64_t		 bl_members;
	uint32_t		 bl_at;
	struct broker_node	*bl_node;	/* at place bl_at; NULL: end */
	uint8_t			 bl_buf[MSG_PAYLOAD_MAX];
};

void	blist_init(struct blist *, struct broker *, struct cookie_key *);
void	blist_on_list(struct blist *, struct msg_ep *, const struct msg_in *);
void	blist_on_page(struct blist *, struct msg_ep *, const struct msg_in *);

#endif
