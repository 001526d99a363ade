/*
 * seqq — non-blocking sends on a SOCK_SEQPACKET socket, with what the
 * peer has not taken yet kept in order and sent from the event loop as
 * soon as the socket has room.  A privileged parent uses it so that a
 * child which stops reading can never block it; when the child leaves
 * more than the queue's bound unread, seqq_send says so and the caller
 * ends the child.
 */
#ifndef CILKNOW_SEQQ_H
#define CILKNOW_SEQQ_H

#include <stddef.h>

#include "evloop.h"

struct seqq;

/* A queue for fd, at most max bytes waiting; NULL on no memory. */
struct seqq	*seqq_new(struct evloop *, int fd, size_t max);
/*
 * Sends the datagram now, or keeps it for later behind those waiting.
 * 0, or -1 with errno: EOVERFLOW when max bytes wait already, another
 * errno when the socket failed (the peer is gone).
 */
int		 seqq_send(struct seqq *, const void *, size_t);
/* Bytes waiting. */
size_t		 seqq_waiting(const struct seqq *);
void		 seqq_free(struct seqq *);

#endif
