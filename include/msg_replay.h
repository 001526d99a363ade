/*
 * msg_replay — replay protection.  A message is fresh when its timestamp
 * is within the window of our clock (either direction, for skew) and its
 * nonce has not been seen from that sender.  Nonces are remembered per
 * authenticated sender in a bounded cache; when a sender's cache is full
 * its oldest nonce is forgotten and the sender's floor rises above that
 * nonce's timestamp, so forgetting never lets a replay through (it can
 * only refuse a message that arrives very late).  When more senders
 * than remembered have spoken, the least recently heard is forgotten,
 * and every sender seen afterwards for the first time starts with a
 * floor above the forgotten one's newest timestamp.  Only authenticated
 * senders get a cache, so an attacker without keys cannot fill it.
 */
#ifndef CILKNOW_MSG_REPLAY_H
#define CILKNOW_MSG_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "msg_codec.h"

#define MSG_REPLAY_PER_SENDER	4096	/* nonces remembered per sender */
#define MSG_REPLAY_SENDERS	1024	/* senders remembered */
/*
 * The cluster's principals speak for every node: a broker of 10^5 nodes
 * hears ~2,000 of their messages a second, and a cache of 4096 would
 * cover only 2 s of them, so a node whose clock is 2 s behind would be
 * refused.  Theirs may grow to cover the window (30 s by default).  Only
 * holders of the cluster key can make it grow.
 */
#define MSG_REPLAY_PER_CLUSTER	(1u << 17)

struct msg_replay;

struct msg_replay *msg_replay_new(size_t per_sender, size_t max_senders);
void		   msg_replay_free(struct msg_replay *);

/*
 * MSG_DROP_NONE (and the nonce is remembered), MSG_DROP_STALE or
 * MSG_DROP_REPLAY.  window_ms applies in both directions.
 */
enum msg_drop	msg_replay_check(struct msg_replay *, enum msg_scheme,
		    const char *name, uint64_t ts_ms,
		    const uint8_t nonce[MSG_NONCE_LEN], uint64_t now_ms,
		    uint64_t window_ms);

/* Senders of this scheme may have per_sender nonces remembered instead. */
int		msg_replay_set_cap(struct msg_replay *, enum msg_scheme,
		    size_t per_sender);

/*
 * From now on every timestamp below ts_ms is refused as a replay, for
 * every sender: what a daemon that starts with an empty cache sets to
 * its start time, so that a message captured before a restart cannot be
 * replayed after it.
 */
void		msg_replay_set_floor(struct msg_replay *, uint64_t ts_ms);

/* Senders currently remembered (for status and tests). */
size_t		msg_replay_senders(const struct msg_replay *);

#endif
