/*
 * proto_health — the messages of CilkNodes drain, resume and -R:
 * HEALTH_REQ (utility -> broker) and HEALTH (broker -> utility).  A
 * drain or resume is signed by the user's key (user scheme) and carried
 * out only for an administrator; a listing (-R) may come under any
 * scheme.  Both end in the broker's cookie (cookie.h), as KILL_REQ:
 * without it the broker answers COOKIE and does nothing.  The answer
 * lists the nodes held out of work: drained by an administrator, or
 * down (silent, forgotten by the broker), each with its reason, who set
 * it and since when.  Decoders check every length and range and refuse
 * leftover bytes; see cilknow-protocol(7).
 */
#ifndef CILKNOW_PROTO_HEALTH_H
#define CILKNOW_PROTO_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_HEALTH_REASON_MAX	120	/* bytes of a reason, at most */
#define PROTO_HEALTH_ROWS_MAX	64	/* rows in one answer */

enum proto_health_op {
	PROTO_HO_UNDEF = 0,
	PROTO_HO_LIST,		/* the held nodes (-R) */
	PROTO_HO_DRAIN,		/* hold a node out of new work */
	PROTO_HO_RESUME,	/* let it take work again */
	PROTO_HO_MAX
};

/*
 * HEALTH_REQ: list: no node and no reason; drain: a node (its number,
 * host name or address, 1 to PROTO_HOST_MAX - 1 bytes of printable
 * ASCII) and a reason (1 to PROTO_HEALTH_REASON_MAX bytes, no control
 * characters); resume: a node, no reason.  Then has_cookie, the cookie.
 */
struct proto_health_req {
	uint8_t		hq_op;		/* enum proto_health_op */
	char		hq_node[PROTO_HOST_MAX];
	char		hq_reason[PROTO_HEALTH_REASON_MAX + 1];
	uint8_t		hq_has_cookie;
	uint8_t		hq_cookie[PROTO_COOKIE_LEN];
};

/* One node held out of work. */
struct proto_health_row {
	uint32_t	hr_node;	/* its number; 0 if not known now */
	struct msg_addr	hr_addr;
	char		hr_host[PROTO_HOST_MAX];
	uint8_t		hr_state;	/* drain, drained or down */
	char		hr_reason[PROTO_HEALTH_REASON_MAX + 1];	/* not "" */
	char		hr_user[MSG_NAME_MAX + 1];	/* who; "" if no one */
	uint64_t	hr_since_ms;	/* wall clock, ms since the epoch */
};

/*
 * HEALTH: what the request did ("" for a list; "node 3 (ws2) drained",
 * for instance), the held nodes (the first PROTO_HEALTH_ROWS_MAX) and
 * how many there are in all.  A refusal is an ERROR with its reason.
 */
struct proto_health {
	char			 he_done[PROTO_REASON_MAX];
	uint32_t		 he_total;	/* >= he_n */
	uint16_t		 he_n;
	struct proto_health_row	 he_rows[PROTO_HEALTH_ROWS_MAX];
};

/*
 * NODE_DOWN (node -> broker, cluster scheme): a node manager whose
 * starts failed node_fault_limit times in a row for reasons of its own
 * (nodedown.h) is down and says why, at once and again with every
 * registration while it is down.  nd_boot is its registration's
 * nr_boot, nd_gen (>= 1) numbers its downs, nd_reason as a drain's.
 */
struct proto_node_down {
	uint64_t	nd_boot;
	uint32_t	nd_gen;
	char		nd_reason[PROTO_HEALTH_REASON_MAX + 1];
};

size_t	proto_node_down_enc(const struct proto_node_down *, uint8_t *,
	    size_t);
int	proto_node_down_dec(struct proto_node_down *, const uint8_t *,
	    size_t);

/* 1 if s may be a reason: 1 to the maximum bytes, no control bytes. */
int	proto_health_reason_ok(const char *s);

/* Encoders: the length written, or 0 if it did not fit or is invalid. */
size_t	proto_health_req_enc(const struct proto_health_req *, uint8_t *,
	    size_t);
int	proto_health_req_dec(struct proto_health_req *, const uint8_t *,
	    size_t);
size_t	proto_health_enc(const struct proto_health *, uint8_t *, size_t);
int	proto_health_dec(struct proto_health *, const uint8_t *, size_t);

#endif
