/*
 * broker_health — CilkJobBroker's nodes held out of work, without I/O:
 * drained by an administrator (CilkNodes drain NODE --reason TEXT, until
 * CilkNodes resume NODE), or down: forgotten after 3 silent register
 * intervals (broker_expire), listed as down with "silent since TIME"
 * until the node registers again or down_keep seconds have passed.
 *
 * A drain is the broker's, kept by node address and host name, not by
 * the registry entry: it holds a node that is forgotten and registers
 * again, or whose node manager restarts.  A drained node keeps running
 * what it runs (its workers end as they would) and is given nothing new:
 * broker_schedule() passes over nodes whose bn_drain is set, and the
 * broker's pushes give it no peers and no other job (bpush).  It shows
 * as drain while it still runs guest work, drained once it runs none.
 * A node may also take itself down (NODE_DOWN: its starts failed
 * node_fault_limit times in a row for reasons of its own, nodedown.h):
 * held like a drain (bn_drain 2), listed as down with its reason, kept
 * by address and name through its node manager's restarts until
 * CilkNodes resume NODE.  A node down by itself says so again with
 * every registration until it is given work again, so a broker
 * restarted meanwhile learns it again; a report of a down already
 * resumed (its boot and number) is not taken again.
 * The records survive a restart of the broker: the daemon keeps them
 * in its registry.db beside its nodes and jobs (bpersist.h) and puts
 * them back with broker_health_reload(), so a node down by itself stays
 * down, with its reason, when both the broker and its node manager
 * restart (the node manager forgets that it was down).
 */
#ifndef CILKNOW_BROKER_HEALTH_H
#define CILKNOW_BROKER_HEALTH_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "broker.h"
#include "proto_health.h"

#define BROKER_HOLDS_MAX	1024	/* drain and down records, at most */
#define BROKER_DOWN_KEEP	86400	/* down_keep's default, seconds */

enum broker_hold_kind {
	BROKER_HOLD_DRAIN = 1,
	BROKER_HOLD_DOWN,	/* forgotten: silent */
	BROKER_HOLD_FAULT	/* down by itself (NODE_DOWN) */
};

struct broker_hold {
	TAILQ_ENTRY(broker_hold) bh_entry;
	uint8_t		 bh_kind;	/* enum broker_hold_kind */
	uint32_t	 bh_node;	/* its number when last known */
	struct msg_addr	 bh_addr;
	char		 bh_host[PROTO_HOST_MAX];
	char		 bh_reason[PROTO_HEALTH_REASON_MAX + 1];
	char		 bh_user[MSG_NAME_MAX + 1];	/* drain: who */
	uint64_t	 bh_since_ms;	/* wall clock */
	uint64_t	 bh_boot;	/* fault: the node's boot ... */
	uint32_t	 bh_gen;	/* ... and its down's number */
	double		 bh_at;		/* now_mono() when recorded */
};

TAILQ_HEAD(broker_hold_list, broker_hold);

struct broker_health {
	struct broker_hold_list	 bh_holds;	/* oldest first */
	uint32_t		 bh_n;
	double			 bh_down_keep;	/* seconds; 0: until it
						   registers again */
	uint64_t		 bh_epoch;	/* rises on every change
						   of a record */
};

void	broker_health_init(struct broker_health *);
void	broker_health_fini(struct broker_health *);

/*
 * Carries out a drain or resume (q->hq_op) by user `by` (admin: 1 if an
 * administrator).  NODE is a node's number, host name or address (as
 * CilkNodes and CilkNodes -n show them), of a node registered or down.
 * A drain records the reason, by and wall_ms (a second drain replaces
 * them); a resume forgets the node's drain and its down record.  0 with
 * what was done in msg; -1 with why not in msg: not an administrator,
 * no such node, not drained, too many held nodes.
 */
int	broker_health_set(struct broker_health *, struct broker *,
	    const struct proto_health_req *q, const char *by, int admin,
	    uint64_t wall_ms, double now, char *msg, size_t msgsz);

/*
 * A node registered: drained again if a drain names it, and no longer
 * down.
 */
void	broker_health_on_register(struct broker_health *, struct broker *,
	    struct broker_node *);

/*
 * A registered node n reported itself down (NODE_DOWN) with its boot,
 * the down's number and reason.  1 if it is held down now (a new hold,
 * or a new reason for it), 0 if nothing changed: held already for this
 * down, or a down resumed already (resume sets bn_resumed_*), or its
 * boot is not the node's, or the table is full.
 */
int	broker_health_fault(struct broker_health *, struct broker *,
	    struct broker_node *n, uint64_t boot, uint32_t gen,
	    const char *reason, uint64_t wall_ms, double now);

/*
 * broker_expire() forgets n, silent for `silent` seconds: it is down,
 * "silent since TIME" (UTC), since wall_ms less its silence.  The
 * oldest down record makes room if the table is full.
 */
void	broker_health_down(struct broker_health *, const struct broker_node *,
	    double silent, uint64_t wall_ms, double now);

/*
 * Puts back a record saved by a broker before this one (its fields but
 * bh_entry and bh_at; bh_at is made from bh_since_ms, so down_keep
 * counts from when it was recorded), after broker_init and the nodes'
 * reload: reloaded nodes it names are held at once.  now is now_mono(),
 * now_ms the realtime.  0, or -1 with why: a kind, address, host name,
 * reason or user that fails its checks (a fault or a silence has no
 * user, a drain a valid one), a record of that kind for that address
 * already, a full table, no memory.
 */
int	broker_health_reload(struct broker_health *, struct broker *,
	    const struct broker_hold *saved, double now, uint64_t now_ms,
	    const char **why);

/* Forgets down records older than bh_down_keep seconds (if not 0). */
void	broker_health_expire(struct broker_health *, double now);

/*
 * The state CilkNodes shows: down if down by itself, drain or drained
 * if drained, else its own.
 */
uint8_t	broker_health_state(const struct broker_node *);

/*
 * The held nodes as HEALTH rows, the first PROTO_HEALTH_ROWS_MAX (drains
 * first), he_total all of them; he_done is left as it is.
 */
void	broker_health_rows(const struct broker_health *, struct broker *,
	    struct proto_health *);

/* The down records, for the listings: first, and the one after h. */
const struct broker_hold *broker_health_first_down(
	    const struct broker_health *);
const struct broker_hold *broker_health_next_down(const struct broker_hold *);
/* How many down records there are. */
uint32_t broker_health_ndown(const struct broker_health *);

#endif
