/* seqq — non-blocking SOCK_SEQPACKET sends, queued in order (seqq.h). */
#include "seqq.h"

#include <sys/queue.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct seqq_item {
	STAILQ_ENTRY(seqq_item) qi_entry;
	size_t		 qi_len;
	uint8_t		 qi_data[];
};

struct seqq {
	struct evloop	*q_loop;
	int		 q_fd;
	/* A duplicate of q_fd, watched for room while items wait. */
	int		 q_wfd;
	size_t		 q_max, q_bytes;
	int		 q_error;	/* the socket failed: errno */
	STAILQ_HEAD(, seqq_item) q_items;
};

static int
try_send(int fd, const void *p, size_t len)
{
	ssize_t n;

	do
		n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	return n == -1 ? -1 : 0;
}

/* What waited may have been keys (a privileged parent's reload). */
static void
item_free(struct seqq_item *it)
{
	explicit_bzero(it->qi_data, it->qi_len);
	free(it);
}

static void
unwatch(struct seqq *q)
{
	if (q->q_wfd == -1)
		return;
	(void)evloop_del_fd(q->q_loop, q->q_wfd);
	close(q->q_wfd);
	q->q_wfd = -1;
}

static void
on_room(struct evloop *loop, int fd, short revents, void *arg)
{
	struct seqq *q = arg;
	struct seqq_item *it;

	(void)loop;
	(void)fd;
	(void)revents;
	while ((it = STAILQ_FIRST(&q->q_items)) != NULL) {
		if (try_send(q->q_fd, it->qi_data, it->qi_len) == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			q->q_error = errno;
			break;
		}
		STAILQ_REMOVE_HEAD(&q->q_items, qi_entry);
		q->q_bytes -= it->qi_len;
		item_free(it);
	}
	unwatch(q);
}

struct seqq *
seqq_new(struct evloop *loop, int fd, size_t max)
{
	struct seqq *q;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->q_loop = loop;
	q->q_fd = fd;
	q->q_wfd = -1;
	q->q_max = max;
	STAILQ_INIT(&q->q_items);
	return q;
}

int
seqq_send(struct seqq *q, const void *p, size_t len)
{
	struct seqq_item *it;

	if (q->q_error != 0) {
		errno = q->q_error;
		return -1;
	}
	/* In order: nothing overtakes what waits. */
	if (STAILQ_EMPTY(&q->q_items)) {
		if (try_send(q->q_fd, p, len) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
	}
	if (q->q_bytes + len > q->q_max) {
		errno = EOVERFLOW;
		return -1;
	}
	if ((it = malloc(sizeof(*it) + len)) == NULL)
		return -1;
	memcpy(it->qi_data, p, len);
	it->qi_len = len;
	if (q->q_wfd == -1) {
		if ((q->q_wfd = fcntl(q->q_fd, F_DUPFD_CLOEXEC, 0)) == -1 ||
		    evloop_add_fd(q->q_loop, q->q_wfd, POLLOUT, on_room,
		    q) == -1) {
			if (q->q_wfd != -1)
				close(q->q_wfd);
			q->q_wfd = -1;
			free(it);
			return -1;
		}
	}
	STAILQ_INSERT_TAIL(&q->q_items, it, qi_entry);
	q->q_bytes += len;
	return 0;
}

size_t
seqq_waiting(const struct seqq *q)
{
	return q->q_bytes;
}

void
seqq_free(struct seqq *q)
{
	struct seqq_item *it;

	if (q == NULL)
		return;
	unwatch(q);
	while ((it = STAILQ_FIRST(&q->q_items)) != NULL) {
		STAILQ_REMOVE_HEAD(&q->q_items, qi_entry);
		item_free(it);
	}
	free(q);
}
