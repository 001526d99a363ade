/*
 * proto_hist — a node manager's recent history, for xCilkNodeInfo(1):
 * the samples it keeps (one every PROTO_HIST_PERIOD seconds and one at
 * every change of state, the newest PROTO_HIST_KEEP of them: about an
 * hour) and the two messages that fetch them (cilknow-protocol(7)).
 *
 * HIST_REQ (tool -> node, either scheme, as CilkNodes asks the broker):
 *	u32 since, u8 has_cookie, [16 cookie]
 * asks for the samples numbered above since (0: all kept).  HIST:
 *	str node, u64 boot, u64 now_ms, u32 first, u32 last,
 *	u16 n, n x sample
 * where first..last are the numbers the node keeps, and a sample is
 *	u32 seq, u64 time_ms, u8 state, u32 owner load, u32 guest load
 *	(thousandths), u32 idle s, u16 users, str logged-in names
 *	(comma-separated), u32 job, str job user
 * At most PROTO_HIST_PAGE samples go in one answer, the oldest first;
 * the asker pages on with since = the last it got until it has last.
 * A different boot means the node manager restarted: its numbers start
 * again.  Under the user scheme the answer goes only to an address that
 * echoed the node's cookie (cookie.h); PROTO_H_COOKIE gives it.
 */
#ifndef CILKNOW_PROTO_HIST_H
#define CILKNOW_PROTO_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_HIST_PERIOD	5	/* seconds between samples */
#define PROTO_HIST_KEEP		720	/* samples kept: an hour of them */
#define PROTO_HIST_PAGE		120	/* samples in one HIST */
#define PROTO_HIST_NAMES_MAX	96	/* "ann,bob,...", cut at a name */

struct proto_hist_req {
	uint32_t	hq_since;
	uint8_t		hq_has_cookie;
	uint8_t		hq_cookie[PROTO_COOKIE_LEN];
};

struct proto_hist_sample {
	uint32_t	hs_seq;		/* >= 1, rising */
	uint64_t	hs_time_ms;	/* the node's realtime clock */
	uint8_t		hs_state;	/* enum proto_node_state */
	uint32_t	hs_owner_milli;	/* 1-minute load, own workers out */
	uint32_t	hs_guest_milli;	/* what the workers add (predicted) */
	uint32_t	hs_idle;	/* seconds since input */
	uint16_t	hs_users;	/* logged-in sessions */
	char		hs_names[PROTO_HIST_NAMES_MAX + 1];
	uint32_t	hs_job;		/* 0: none */
	char		hs_job_user[MSG_NAME_MAX + 1];
	uint16_t	hs_running;	/* workers running (or frozen) */
	uint16_t	hs_lent;	/* processors lent */
	uint16_t	hs_total;	/* processors */
};

struct proto_hist {
	char			 hi_node[PROTO_HOST_MAX];
	uint64_t		 hi_boot;
	uint64_t		 hi_now_ms;
	uint32_t		 hi_first, hi_last;	/* 0, 0: none kept */
	uint16_t		 hi_n;
	struct proto_hist_sample hi_s[PROTO_HIST_PAGE];
};

/*
 * The node's ring of samples: push the newest, page out the ones after
 * a number.  Numbers start at 1 and never repeat within a boot.
 */
struct proto_hist_ring {
	struct proto_hist_sample hr_s[PROTO_HIST_KEEP];
	uint32_t		 hr_next;	/* number of the next push */
	uint32_t		 hr_n;		/* kept, <= PROTO_HIST_KEEP */
};

void	proto_hist_ring_init(struct proto_hist_ring *);
/* Keeps s (numbered here), dropping the oldest when full. */
void	proto_hist_ring_push(struct proto_hist_ring *,
	    const struct proto_hist_sample *s);
/* The newest kept, or NULL. */
const struct proto_hist_sample *proto_hist_ring_last(
	    const struct proto_hist_ring *);
/* Fills h's range and up to PROTO_HIST_PAGE samples numbered > since. */
void	proto_hist_ring_page(const struct proto_hist_ring *, uint32_t since,
	    struct proto_hist *h);

/*
 * Logged-in names as one string, "a,b,c", cut before the name that
 * would not fit in PROTO_HIST_NAMES_MAX (then ending ",...").
 */
void	proto_hist_names(char *buf, size_t bufsz, const char *const *names,
	    size_t n);

size_t	proto_hist_req_enc(const struct proto_hist_req *, uint8_t *, size_t);
int	proto_hist_req_dec(struct proto_hist_req *, const uint8_t *, size_t);
size_t	proto_hist_enc(const struct proto_hist *, uint8_t *, size_t);
int	proto_hist_dec(struct proto_hist *, const uint8_t *, size_t);

#endif
