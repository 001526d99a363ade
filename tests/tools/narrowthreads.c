/*
 * narrowthreads SECONDS — a program of threads with no parallelism: its
 * root thread sleeps SECONDS without a look at the network and answers
 * 1.  Workers that join it find nothing to steal; their heartbeats say
 * they starve, and the job's useful-worker estimate falls to the root
 * (cilknow(3), "Useful parallelism").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cilknow.h"

static void
narrow(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct timespec ts;
	uint32_t ms;
	int64_t one = 1;

	if (len != sizeof(ms))
		return;
	memcpy(&ms, arg, sizeof(ms));
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1)
		continue;
	(void)cn_send(c, k, &one, sizeof(one));
}

static cn_thread *const threads[] = { narrow };

int
main(int argc, char *argv[])
{
	struct cn_tprogram p = { "narrowthreads", threads, 1 };
	struct cn_stats st;
	int64_t v;
	double s;
	uint32_t ms;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (s = strtod(argv[1], NULL)) <= 0 || s > 600) {
		fprintf(stderr, "usage: narrowthreads SECONDS\n");
		return 2;
	}
	ms = (uint32_t)(s * 1000);
	if (cn_run_thread(&p, 0, &ms, sizeof(ms), &st) == -1) {
		perror("narrowthreads");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v)) {
		fprintf(stderr, "narrowthreads: an answer of %zu bytes\n",
		    st.cs_answer_len);
		return 1;
	}
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%lld\n", (long long)v);
	return 0;
}
