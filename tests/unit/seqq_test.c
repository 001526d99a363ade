/* seqq_test — non-blocking SOCK_SEQPACKET sends, queued in order. */
#include <sys/socket.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "evloop.h"
#include "seqq.h"

#define LEN	1000

static void
fill(uint8_t *b, uint32_t seq)
{
	memset(b, 0, LEN);
	memcpy(b, &seq, sizeof(seq));
}

int
main(void)
{
	static uint8_t b[LEN], got[LEN + 1];
	struct evloop *loop;
	struct seqq *q;
	uint32_t seq, rseq, next = 0, queued_from = 0;
	int sv[2], sent_now = 0, in_order = 1, rc = 0;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == -1 ||
	    (loop = evloop_new()) == NULL)
		return 1;
	ok((q = seqq_new(loop, sv[0], 64 * LEN)) != NULL, "a queue");
	/* Until the socket is full: sent at once, never blocking. */
	for (seq = 0; seq < 100000 && seqq_waiting(q) == 0; seq++) {
		fill(b, seq);
		if ((rc = seqq_send(q, b, LEN)) == -1)
			break;
		if (seqq_waiting(q) == 0)
			sent_now++;
		else
			queued_from = seq;
	}
	ok(rc == 0 && sent_now > 0 && seqq_waiting(q) == LEN,
	    "%d datagrams sent at once, then one kept (the socket is full)",
	    sent_now);
	for (; seqq_waiting(q) < 64 * LEN; seq++) {
		fill(b, seq);
		if (seqq_send(q, b, LEN) == -1)
			break;
	}
	ok(seqq_waiting(q) == 64 * LEN, "up to its bound kept: 64 datagrams");
	fill(b, seq);
	errno = 0;
	ok(seqq_send(q, b, LEN) == -1 && errno == EOVERFLOW,
	    "one more: EOVERFLOW, the peer does not read");
	/* The peer reads: the loop sends what waits, in order. */
	while (next < seq) {
		while ((n = recv(sv[1], got, sizeof(got), MSG_DONTWAIT)) > 0) {
			memcpy(&rseq, got, sizeof(rseq));
			if (n != LEN || rseq != next)
				in_order = 0;
			next++;
			if (!in_order)
				break;
		}
		if (!in_order || evloop_run_once(loop, 1.0) == -1)
			break;
		if (seqq_waiting(q) == 0 &&
		    recv(sv[1], got, sizeof(got), MSG_DONTWAIT | MSG_PEEK) ==
		    -1 && errno == EAGAIN)
			break;
	}
	ok(in_order && next == seq && seqq_waiting(q) == 0,
	    "every datagram arrives, in order, the queue empty (%u, from "
	    "%u queued)", next, queued_from);
	fill(b, 7);
	ok(seqq_send(q, b, LEN) == 0 && seqq_waiting(q) == 0,
	    "with room again, a send goes at once");
	ok(recv(sv[1], got, sizeof(got), 0) == LEN, "and arrives");
	close(sv[1]);
	fill(b, 8);
	rc = seqq_send(q, b, LEN);
	n = errno;
	ok(rc == -1 && n != EOVERFLOW && seqq_waiting(q) == 0,
	    "the peer gone: an error, not a queue (%s)", strerror((int)n));
	seqq_free(q);
	evloop_free(loop);
	close(sv[0]);
	return tap_done();
}
