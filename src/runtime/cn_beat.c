/*
 * cn_beat — a worker's heartbeat thread.  The clearinghouse gives a
 * silent worker up for lost and redoes its work; a task may run for
 * minutes without reaching a poll point, and a loaded machine may not
 * run the event loop for seconds, so the heartbeat cannot wait for
 * either.  The thread shares nothing with the event loop but two
 * atomics and the socket (msg_ep_send_aside); a stopped or crashed
 * process stops its thread too, which is the silence that must count.
 */
#include "cn_rt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static void *
beat(void *arg)
{
	struct cn_ctx *c = arg;
	struct timespec gap = { 0, (long)(CN_HEARTBEAT * 1e9) };
	uint8_t buf[64];
	struct cn_msg m;
	size_t len;

	for (;;) {
		while (nanosleep(&gap, NULL) == -1 && errno == EINTR)
			continue;
		memset(&m, 0, offsetof(struct cn_msg, cm_frames));
		if ((m.cm_worker = atomic_load(&c->c_beat_id)) == 0)
			continue;
		m.cm_stat[0] = atomic_load(&c->c_beat_tasks);
		m.cm_stat[1] = atomic_load(&c->c_beat_want);
		if ((len = cn_msg_enc(CN_H_HEARTBEAT, &m, buf,
		    sizeof(buf))) > 0)
			(void)msg_ep_send_aside(c->c_ep, &c->c_chouse,
			    MSG_SCHEME_USER, CN_H_HEARTBEAT, buf, len);
	}
	return NULL;
}

int
cn_beat_start(struct cn_ctx *c)
{
	pthread_t t;
	sigset_t all, old;
	int e;

	/* Signals are the event loop's: the thread takes none. */
	sigfillset(&all);
	if ((e = pthread_sigmask(SIG_BLOCK, &all, &old)) == 0) {
		e = pthread_create(&t, NULL, beat, c);
		(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (e != 0) {
		errno = e;
		return -1;
	}
	(void)pthread_detach(t);
	c->c_beat_on = 1;
	return 0;
}
