/* broker_kill — ending jobs for CilkKill, and remembering them. */
#include "broker_kill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
broker_kill_init(struct broker_kill *bk)
{
	TAILQ_INIT(&bk->bk_ended);
	bk->bk_n = 0;
}

static void
forget(struct broker_kill *bk, struct broker_ended *e)
{
	TAILQ_REMOVE(&bk->bk_ended, e, be_entry);
	bk->bk_n--;
	free(e);
}

void
broker_kill_fini(struct broker_kill *bk)
{
	struct broker_ended *e;

	while ((e = TAILQ_FIRST(&bk->bk_ended)) != NULL)
		forget(bk, e);
}

/* The latest ended job with this id, whatever its job manager. */
static const struct broker_ended *
find_id(const struct broker_kill *bk, uint32_t job)
{
	const struct broker_ended *e;

	TAILQ_FOREACH_REVERSE(e, &bk->bk_ended, broker_ended_list, be_entry)
		if (e->be_job == job)
			return e;
	return NULL;
}

const struct broker_ended *
broker_kill_find(const struct broker_kill *bk, uint32_t job, uint64_t boot)
{
	const struct broker_ended *e;

	TAILQ_FOREACH(e, &bk->bk_ended, be_entry)
		if (e->be_job == job && e->be_boot == boot)
			return e;
	return NULL;
}

const struct broker_ended *
broker_kill_seen(struct broker_kill *bk, uint32_t job, uint64_t boot,
    double now)
{
	struct broker_ended *e;

	TAILQ_FOREACH(e, &bk->bk_ended, be_entry)
		if (e->be_job == job && e->be_boot == boot)
			break;
	if (e == NULL)
		return NULL;
	/* The list stays oldest first, for broker_kill_expire(). */
	e->be_at = now;
	TAILQ_REMOVE(&bk->bk_ended, e, be_entry);
	TAILQ_INSERT_TAIL(&bk->bk_ended, e, be_entry);
	return e;
}

void
broker_kill_expire(struct broker_kill *bk, double now, double limit)
{
	struct broker_ended *e;

	while ((e = TAILQ_FIRST(&bk->bk_ended)) != NULL &&
	    now - e->be_at > limit)
		forget(bk, e);
}

static int
may_end(const char *owner, const char *by, int admin)
{
	return admin || strcmp(owner, by) == 0;
}

/*
 * Takes j out of the registry and remembers it; the oldest memory goes
 * when full (its job manager, if it missed JOB_ENDED, may then bring
 * its job back with its next registration).  NULL only when out of
 * memory, and then the job is left running.
 */
static struct broker_ended *
end_job(struct broker_kill *bk, struct broker *br, struct broker_job *j,
    const char *by, double now)
{
	struct broker_ended *e;
	const char *why;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	e->be_job = j->bj_id;
	e->be_boot = j->bj_boot;
	strlcpy(e->be_user, j->bj_user, sizeof(e->be_user));
	strlcpy(e->be_by, by, sizeof(e->be_by));
	e->be_addr = j->bj_addr;
	strlcpy(e->be_command, j->bj_command, sizeof(e->be_command));
	e->be_at = now;
	if (broker_job_unregister(br, j->bj_id, j->bj_user, &why) == -1) {
		free(e);	/* cannot be: j is in the registry */
		return NULL;
	}
	if (bk->bk_n >= BROKER_ENDED_MAX)
		forget(bk, TAILQ_FIRST(&bk->bk_ended));
	TAILQ_INSERT_TAIL(&bk->bk_ended, e, be_entry);
	bk->bk_n++;
	return e;
}

static struct proto_kill_row *
add_row(struct proto_kill_ans *ans, uint32_t job, uint8_t result,
    const char *user)
{
	struct proto_kill_row *r;

	if (ans->kn_n >= PROTO_KILL_ROWS_MAX)
		return NULL;
	r = &ans->kn_rows[ans->kn_n++];
	r->kr_job = job;
	r->kr_result = result;
	strlcpy(r->kr_user, user, sizeof(r->kr_user));
	return r;
}

/* One id of the jobs form. */
static void
kill_one(struct broker_kill *bk, struct broker *br, uint32_t id,
    const char *by, int admin, double now, struct proto_kill_ans *ans,
    broker_ended_fn *fn, void *arg)
{
	const struct broker_ended *old;
	struct broker_ended *e;
	struct broker_job *j;

	if ((j = broker_job_find(br, id)) != NULL) {
		if (!may_end(j->bj_user, by, admin)) {
			(void)add_row(ans, id, PROTO_KR_NOT_YOURS, j->bj_user);
			return;
		}
		if ((e = end_job(bk, br, j, by, now)) == NULL) {
			/* Out of memory: say no rather than lie. */
			(void)add_row(ans, id, PROTO_KR_NO_JOB, "");
			return;
		}
		(void)add_row(ans, id, PROTO_KR_ENDED, e->be_user);
		if (fn != NULL)
			fn(e, arg);
	} else if ((old = find_id(bk, id)) != NULL)
		(void)add_row(ans, id, may_end(old->be_user, by, admin) ?
		    PROTO_KR_ALREADY : PROTO_KR_NOT_YOURS, old->be_user);
	else
		(void)add_row(ans, id, PROTO_KR_NO_JOB, "");
}

int
broker_kill(struct broker_kill *bk, struct broker *br,
    const struct proto_kill_req *q, const char *by, int admin, double now,
    struct proto_kill_ans *ans, broker_ended_fn *fn, void *arg, char *why,
    size_t whysz)
{
	const struct broker_ended *old;
	struct broker_ended *e;
	struct broker_job *j, *next;
	uint32_t earlier[BROKER_ENDED_MAX], nearlier = 0, k;
	uint16_t i;

	memset(ans, 0, sizeof(*ans));
	if (!msg_user_name_ok(by)) {
		snprintf(why, whysz, "only a user, with the user's own key, "
		    "may end jobs");
		return -1;
	}
	if (q->kq_what == PROTO_KILL_JOBS) {
		for (i = 0; i < q->kq_njobs && i < PROTO_KILL_JOBS_MAX; i++)
			kill_one(bk, br, q->kq_jobs[i], by, admin, now, ans, fn,
			    arg);
		return 0;
	}
	if (q->kq_what != PROTO_KILL_USER) {
		snprintf(why, whysz, "malformed");
		return -1;
	}
	if (!may_end(q->kq_user, by, admin)) {
		snprintf(why, whysz, "only %s or an administrator may end %s's "
		    "jobs, and %s is neither", q->kq_user, q->kq_user, by);
		return -1;
	}
	/* Those ended earlier, noted before end_job() adds to the list. */
	TAILQ_FOREACH(old, &bk->bk_ended, be_entry)
		if (strcmp(old->be_user, q->kq_user) == 0 &&
		    nearlier < BROKER_ENDED_MAX)
			earlier[nearlier++] = old->be_job;
	for (j = TAILQ_FIRST(&br->br_jobs); j != NULL; j = next) {
		next = TAILQ_NEXT(j, bj_entry);
		if (strcmp(j->bj_user, q->kq_user) != 0)
			continue;
		/* Every job is ended, even those the answer has no row for. */
		if ((e = end_job(bk, br, j, by, now)) == NULL)
			continue;
		(void)add_row(ans, e->be_job, PROTO_KR_ENDED, e->be_user);
		if (fn != NULL)
			fn(e, arg);
	}
	for (k = 0; k < nearlier; k++)
		(void)add_row(ans, earlier[k], PROTO_KR_ALREADY, q->kq_user);
	return 0;
}
