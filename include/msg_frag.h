/*
 * msg_frag — long messages as several datagrams.  A sealed message longer
 * than one datagram is cut into fragments with a small clear header and
 * reassembled before it is opened, so authentication covers the whole
 * message (the thesis's layering).  Since fragments are not authenticated
 * on their own, reassembly memory is bounded per sender address and in
 * total, and incomplete reassemblies time out.  When it is full, a new
 * message displaces one of a sender of the lowest rank first: unknown,
 * then users (a sender that was authentic under the user scheme, or
 * that we sent a message to: its answer is awaited), then the cluster
 * (a sender authentic under the cluster key: the broker, nodes); among
 * equals, one of the host holding the most reassemblies (ports do not
 * count), then the oldest.  A newcomer of a lower rank than what it
 * would displace is refused, and so is one of the same rank whose host
 * would then hold more: a flood from one host only displaces itself.
 */
#ifndef CILKNOW_MSG_FRAG_H
#define CILKNOW_MSG_FRAG_H

#include <stddef.h>
#include <stdint.h>

#include "msg_codec.h"

#define MSG_FRAG_HDR		16
#define MSG_FRAG_DATA		(MSG_DGRAM_MAX - MSG_FRAG_HDR)
#define MSG_FRAG_COUNT_MAX	((MSG_SEALED_MAX + MSG_FRAG_DATA - 1) / \
				    MSG_FRAG_DATA)
#define MSG_FRAG_PER_SENDER	(2 * MSG_SEALED_MAX)	/* bytes */
#define MSG_FRAG_TOTAL		(8u << 20)		/* bytes */
#define MSG_FRAG_TIMEOUT	5.0			/* seconds */

struct msg_frag;

enum msg_frag_rank {
	MSG_FRAG_UNKNOWN = 0,
	MSG_FRAG_USER,		/* authentic as a user, or asked by us */
	MSG_FRAG_CLUSTER,	/* authentic under the cluster key */
	MSG_FRAG_RANK_MAX
};

struct msg_frag	*msg_frag_new(size_t per_sender, size_t total, double timeout);
void		 msg_frag_free(struct msg_frag *);

/* Fragments a sealed message of len bytes needs (1: send it whole). */
size_t		 msg_frag_count(size_t len);
/*
 * Writes fragment index of the sealed message into out (MSG_DGRAM_MAX
 * bytes) and returns its length.
 */
size_t		 msg_frag_build(uint32_t msgid, size_t index,
		    const uint8_t *sealed, size_t len, uint8_t *out);

/*
 * Takes one fragment datagram from `from`.  Returns MSG_DROP_NONE and
 * sets *whole and *wholelen when it completed a message (valid until the
 * next call), or leaves *whole NULL while more is needed.  Drops on a
 * bad fragment header (MSG_DROP_BAD_LENGTH / BAD_HEADER) or when the
 * memory bounds would be exceeded (MSG_DROP_REASSEMBLY).
 */
enum msg_drop	 msg_frag_input(struct msg_frag *, const struct msg_addr *from,
		    const uint8_t *dgram, size_t len, double now,
		    const uint8_t **whole, size_t *wholelen);
/*
 * from has sent an authentic message (the endpoint says so after
 * opening one): its reassemblies are displaced last.
 */
void		 msg_frag_proven(struct msg_frag *, const struct msg_addr *from);
/*
 * The same with a rank: from is remembered among the last 256 of that
 * rank (an address may be in more than one; its best counts).
 */
void		 msg_frag_rank(struct msg_frag *, const struct msg_addr *from,
		    enum msg_frag_rank);
enum msg_frag_rank msg_frag_rank_of(const struct msg_frag *,
		    const struct msg_addr *);
/* Discards reassemblies older than the timeout; returns how many. */
size_t		 msg_frag_expire(struct msg_frag *, double now);
/* Bytes held now (for tests and status). */
size_t		 msg_frag_bytes(const struct msg_frag *);
/* Seconds until the oldest reassembly expires, or -1 if none. */
double		 msg_frag_next_deadline(const struct msg_frag *, double now);

#endif
