/*
 * cn_threads — a program of threads in this process: the scheduler
 * (cn_sched.c) run for the root, alone or as its clearinghouse's root
 * unit, and its answer handed to cn_run.  Under a clearinghouse its
 * ready closures may be stolen by the job's workers, and while it waits
 * for their values it steals too (cn_steal.c).
 */
#include "cn_rt.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "cn_sched.h"
#include "mono.h"

/*
 * CILKNOW_MIN_WORKERS=N: the root thread waits (at most
 * CN_MIN_WORKERS_WAIT) until N workers besides the root are members
 * and have asked it for work, so that a test or a measurement starts
 * with its workers there and stealing.
 */
static void
wait_workers(struct cn_ctx *c)
{
	const char *v = getenv("CILKNOW_MIN_WORKERS"), *err;
	double until = now_mono() + CN_MIN_WORKERS_WAIT;
	long long n;

	if (v == NULL || *v == '\0')
		return;
	n = strtonum(v, 0, 1024, &err);
	if (err != NULL) {
		fprintf(stderr, "%s: cilknow: CILKNOW_MIN_WORKERS %s: %s\n",
		    c->c_prog->cp_name, v, err);
		return;
	}
	while ((cn_net_members(c) < (uint32_t)n + 1 ||
	    cn_net_thieves(c) < (uint32_t)n) && !c->c_failed &&
	    now_mono() < until)
		if (cn_link_look(c, CN_TICK) == -1)
			break;
	if (cn_net_thieves(c) < (uint32_t)n)
		fprintf(stderr, "%s: cilknow: %u of %lld workers asked for "
		    "work; starting anyway\n", c->c_prog->cp_name,
		    cn_net_thieves(c), n);
}

int
cn_threads_run(struct cn_ctx *c)
{
	struct cn_sched *s;
	double t0;
	int rc;

	if ((s = malloc(sizeof(*s))) == NULL) {
		c->c_thread_err = errno;
		snprintf(c->c_thread_why, sizeof(c->c_thread_why), "%s",
		    "no memory for the scheduler");
		return -1;
	}
	/*
	 * Values of up to 1 MiB come and go by the thousand: from the
	 * heap, reused, not from fresh mappings whose every page faults.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
	(void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
	/* Alone: every spawn a call.  A root: a look at the link often. */
	if (c->c_alone)
		cn_sched_init(s, c, c->c_tprog, INT32_MAX, 0);
	else {
		cn_sched_init(s, c, c->c_tprog, CN_BUDGET, CN_LAZY);
		s->s_poll = cn_sched_poll;
		s->s_poll_arg = c;
		cn_net_attach(c, s, 0);
		wait_workers(c);
	}
	t0 = now_mono();
	rc = cn_sched_run(s, c->c_thread_fn, c->c_thread_arg,
	    c->c_thread_len, c->c_thread_why, sizeof(c->c_thread_why));
	c->c_thread_secs = now_mono() - t0;
	c->c_thread_err = rc == -1 ? errno : 0;
	c->c_thread_threads = s->s_threads;
	cn_net_detach(c);
	c->c_thread_closures = s->s_from_closure;
	if (rc == 0) {
		/* The answer stays until exit: cn_stats points to it. */
		c->c_answer = s->s_answer;
		c->c_answer_len = s->s_answer_len;
		s->s_answer = NULL;
	}
	cn_sched_fini(s);
	free(s);
	c->c_thread_rc = rc;
	return rc;
}
