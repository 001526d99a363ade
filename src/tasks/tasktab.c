/* tasktab — a job manager's task table; see include/tasktab.h. */
#include "tasktab.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
tt_init(struct tasktab *tt, uint32_t want, uint32_t retries)
{
	memset(tt, 0, sizeof(*tt));
	if (want > TT_TASKS_MAX || retries < 1) {
		errno = EINVAL;
		return -1;
	}
	if ((tt->tt_t = calloc(TT_TASKS_MAX, sizeof(*tt->tt_t))) == NULL)
		return -1;
	tt->tt_want = want;
	tt->tt_retries = retries;
	tt->tt_n = want;	/* all pending; open-ended: none yet */
	return 0;
}

void
tt_free(struct tasktab *tt)
{
	free(tt->tt_t);
	tt->tt_t = NULL;
}

int
tt_node_gone(const struct tasktab *tt, const char *node)
{
	size_t hl = strcspn(node, "/");
	uint32_t i;

	for (i = 0; i < tt->tt_ngone; i++)
		if (strcmp(tt->tt_gone[i], node) == 0 ||
		    (node[hl] == '/' && strlen(tt->tt_gone[i]) == hl &&
		    strncmp(tt->tt_gone[i], node, hl) == 0))
			return 1;
	return 0;
}

void
tt_give_host_up(struct tasktab *tt, const char *host)
{
	if (host[0] == '\0' || strchr(host, '/') != NULL ||
	    tt_node_gone(tt, host) || tt->tt_ngone == TT_GONE_MAX)
		return;
	strlcpy(tt->tt_gone[tt->tt_ngone++], host, TT_NODE_MAX);
}

static void
give_node_up(struct tasktab *tt, const char *node)
{
	if (tt_node_gone(tt, node) || tt->tt_ngone == TT_GONE_MAX)
		return;
	strlcpy(tt->tt_gone[tt->tt_ngone++], node, TT_NODE_MAX);
}

/* Open-ended: a node runs the program once (to its end). */
static int
node_finished(const struct tasktab *tt, const char *node)
{
	uint32_t i;

	for (i = 0; i < tt->tt_n; i++)
		if ((tt->tt_t[i].tk_state == TT_DONE ||
		    tt->tt_t[i].tk_state == TT_FAILED) &&
		    strcmp(tt->tt_t[i].tk_node, node) == 0)
			return 1;
	return 0;
}

enum tt_take
tt_take(struct tasktab *tt, const char *node, double now, uint32_t *task)
{
	return tt_take_fetch(tt, node, 0, now, task);
}

enum tt_take
tt_take_fetch(struct tasktab *tt, const char *node, uint64_t fetch,
    double now, uint32_t *task)
{
	struct tt_task *t;
	uint32_t i;

	for (i = 0; i < tt->tt_n; i++) {
		t = &tt->tt_t[i];
		if (t->tk_state != TT_RUNNING || strcmp(t->tk_node, node) != 0)
			continue;
		t->tk_seen = now;
		*task = i;
		/*
		 * The node asks afresh (another fetch) for a task it was
		 * heard running: it lost that attempt with its restart.
		 * Counted as stopped, and the task starts there again as a
		 * new attempt.  Not heard running, the hand-out never
		 * reached a worker: the same attempt, asked for again.
		 */
		if (fetch != 0 && t->tk_fetch != 0 && fetch != t->tk_fetch &&
		    t->tk_heard) {
			tt->tt_ran++;
			tt->tt_stopped++;
			t->tk_attempts++;
			t->tk_fetch = fetch;
			t->tk_heard = 0;
			return TT_TAKE_RESTARTED;
		}
		if (fetch != 0)
			t->tk_fetch = fetch;
		return TT_TAKE_AGAIN;
	}
	if (tt_node_gone(tt, node))
		return TT_TAKE_GONE;
	if (tt->tt_want == 0) {
		if (node_finished(tt, node))
			return TT_TAKE_NONE;
		if (tt->tt_n == TT_TASKS_MAX)
			return TT_TAKE_FULL;
		i = tt->tt_n++;
	} else {
		/* The lowest free number: tasks run roughly in order. */
		for (i = 0; i < tt->tt_n; i++)
			if (tt->tt_t[i].tk_state == TT_PENDING)
				break;
		if (i == tt->tt_n)
			return TT_TAKE_NONE;
	}
	t = &tt->tt_t[i];
	t->tk_state = TT_RUNNING;
	t->tk_attempts++;
	strlcpy(t->tk_node, node, sizeof(t->tk_node));
	t->tk_seen = now;
	t->tk_fetch = fetch;
	t->tk_heard = 0;
	*task = i;
	return TT_TAKE_NEW;
}

int
tt_holds(const struct tasktab *tt, uint32_t task, const char *node)
{
	return task < tt->tt_n && tt->tt_t[task].tk_attempts > 0 &&
	    strcmp(tt->tt_t[task].tk_node, node) == 0;
}

void
tt_seen(struct tasktab *tt, uint32_t task, const char *node, double now)
{
	if (tt_holds(tt, task, node) &&
	    tt->tt_t[task].tk_state == TT_RUNNING) {
		tt->tt_t[task].tk_seen = now;
		tt->tt_t[task].tk_heard = 1;
	}
}

enum tt_end
tt_exit(struct tasktab *tt, uint32_t task, const char *node,
    int32_t status, int nostart)
{
	struct tt_task *t;
	int fixed = tt->tt_want > 0;

	if (!tt_holds(tt, task, node) ||
	    tt->tt_t[task].tk_state != TT_RUNNING)
		return TT_END_STALE;
	t = &tt->tt_t[task];
	t->tk_status = status;
	if (nostart) {
		/* It never ran: not the task's fault, but the node's. */
		tt->tt_nostart++;
		give_node_up(tt, node);
		t->tk_state = fixed ? TT_PENDING : TT_LOST;
		if (fixed && t->tk_attempts > 0)
			t->tk_attempts--;
		return TT_END_NOSTART;
	}
	tt->tt_ran++;
	if (status == -SIGQUIT || status == -SIGKILL) {
		tt->tt_stopped++;
		t->tk_state = fixed ? TT_PENDING : TT_STOPPED;
		return TT_END_STOPPED;
	}
	if (status == 0) {
		tt->tt_done++;
		t->tk_state = TT_DONE;
		return TT_END_DONE;
	}
	tt->tt_failures++;
	t->tk_failures++;
	if (!fixed) {
		t->tk_state = TT_FAILED;
		return TT_END_FAILED;
	}
	if (t->tk_failures >= tt->tt_retries) {
		tt->tt_given_up++;
		t->tk_state = TT_GIVEN_UP;
		return TT_END_GIVEN_UP;
	}
	t->tk_state = TT_PENDING;
	return TT_END_RETRY;
}

/* A hand-out nobody runs: to run again, or lost when open-ended. */
static void
take_back(struct tasktab *tt, struct tt_task *t)
{
	t->tk_state = tt->tt_want > 0 ? TT_PENDING : TT_LOST;
	tt->tt_lost++;
}

uint32_t
tt_reclaim(struct tasktab *tt, double now, double after,
    void (*cb)(uint32_t, const struct tt_task *, void *), void *arg)
{
	struct tt_task *t;
	uint32_t i, n = 0;

	for (i = 0; i < tt->tt_n; i++) {
		t = &tt->tt_t[i];
		if (t->tk_state != TT_RUNNING || now - t->tk_seen <= after)
			continue;
		take_back(tt, t);
		n++;
		if (cb != NULL)
			cb(i, t, arg);
	}
	return n;
}

int64_t
tt_withdraw(struct tasktab *tt, const char *node, uint64_t fetch)
{
	struct tt_task *t;
	uint32_t i;

	if (fetch == 0)
		return -1;
	for (i = 0; i < tt->tt_n; i++) {
		t = &tt->tt_t[i];
		if (t->tk_state != TT_RUNNING || t->tk_fetch != fetch ||
		    !tt_holds(tt, i, node))
			continue;
		take_back(tt, t);
		return i;
	}
	return -1;
}

uint32_t
tt_running(const struct tasktab *tt)
{
	uint32_t i, n = 0;

	for (i = 0; i < tt->tt_n; i++)
		n += tt->tt_t[i].tk_state == TT_RUNNING;
	return n;
}

uint32_t
tt_left(const struct tasktab *tt)
{
	if (tt->tt_want == 0)
		return 0;
	return tt->tt_want - tt->tt_done - tt->tt_given_up;
}

uint32_t
tt_waiting(const struct tasktab *tt)
{
	uint32_t left = tt_left(tt), running = tt_running(tt);

	return left > running ? left - running : 0;
}

int
tt_over(const struct tasktab *tt)
{
	return tt->tt_want > 0 && tt_left(tt) == 0;
}

char *
tt_given_up_list(const struct tasktab *tt, char *buf, size_t bufsz)
{
	size_t off = 0;
	uint32_t i;
	int k;

	if (bufsz == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < tt->tt_n; i++) {
		if (tt->tt_t[i].tk_state != TT_GIVEN_UP)
			continue;
		k = snprintf(buf + off, bufsz - off, "%s%u", off ? ", " : "",
		    i);
		if (k < 0 || (size_t)k >= bufsz - off) {
			/* Cut at the last whole number. */
			buf[off] = '\0';
			break;
		}
		off += (size_t)k;
	}
	return buf;
}

void
tt_nostart_text(const char *cwd, const char *node, const char *raw,
    char *buf, size_t bufsz)
{
	static const char enoent[] = ": No such file or directory";
	size_t rl = strlen(raw), cl = strlen(cwd), el = sizeof(enoent) - 1;

	/* The launch pad says "CWD: strerror" when chdir fails ... */
	if (rl == cl + el && strncmp(raw, cwd, cl) == 0 &&
	    strcmp(raw + cl, enoent) == 0) {
		snprintf(buf, bufsz, "working folder %s does not exist on "
		    "node %s", cwd, node);
		return;
	}
	/* ... and "exec PROGRAM: strerror" when execvp does. */
	if (strncmp(raw, "exec ", 5) == 0 && rl > 5 + el &&
	    strcmp(raw + rl - el, enoent) == 0) {
		snprintf(buf, bufsz, "program %.*s not found on node %s",
		    (int)(rl - 5 - el), raw + 5, node);
		return;
	}
	snprintf(buf, bufsz, "cannot start on node %s: %s", node, raw);
}
