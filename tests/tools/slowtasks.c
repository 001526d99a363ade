/*
 * slowtasks N SECONDS — a parallel program whose tasks are long: the
 * root spawns N tasks, task i sleeps SECONDS without a look at the
 * network and adds i + 1, so the answer is N(N+1)/2.  A worker deep in
 * such a task must still count as alive (cilknow(3): heartbeats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cilknow.h"

enum { ROOT_TASK, SLOW_TASK, SLOW_NFNS };

struct slow {
	uint32_t	s_n, s_i, s_ms;
};

static void
slow_task(struct cn_ctx *c, const void *arg, size_t len)
{
	struct slow s;
	struct timespec ts;

	if (len != sizeof(s))
		return;
	memcpy(&s, arg, sizeof(s));
	if (s.s_ms > 600000)
		return;
	ts.tv_sec = s.s_ms / 1000;
	ts.tv_nsec = (long)(s.s_ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) == -1)
		continue;
	cn_add(c, (int64_t)s.s_i + 1);
}

static void
root_task(struct cn_ctx *c, const void *arg, size_t len)
{
	struct slow s;

	if (len != sizeof(s))
		return;
	memcpy(&s, arg, sizeof(s));
	if (s.s_n > 64)
		return;
	for (s.s_i = 0; s.s_i < s.s_n; s.s_i++)
		cn_spawn(c, SLOW_TASK, &s, sizeof(s));
}

static cn_fn *const slow_fns[SLOW_NFNS] = { root_task, slow_task };

int
main(int argc, char *argv[])
{
	struct cn_program p = { "slowtasks", slow_fns, SLOW_NFNS, NULL, NULL };
	struct cn_stats st;
	struct slow s;
	const char *e1 = NULL, *e2 = NULL;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	memset(&s, 0, sizeof(s));
	if (argc != 3 ||
	    (s.s_n = (uint32_t)strtonum(argv[1], 1, 64, &e1), e1 != NULL) ||
	    (s.s_ms = (uint32_t)(strtod(argv[2], NULL) * 1000), s.s_ms == 0) ||
	    s.s_ms > 600000 || e2 != NULL) {
		fprintf(stderr, "usage: slowtasks N SECONDS\n");
		return 2;
	}
	if (cn_run(&p, ROOT_TASK, &s, sizeof(s), &st) == -1) {
		perror("slowtasks");
		return 1;
	}
	printf("%lld\n", (long long)st.cs_sum);
	return 0;
}
