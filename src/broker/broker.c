/* broker — registry, expiry and global scheduling of CilkJobBroker. */
#include "broker.h"

#include <stdlib.h>
#include <string.h>

#include "fairshare.h"

#define NODES_MAX	PROTO_ROWS_MAX
#define JOBS_MAX	PROTO_ROWS_MAX
#define MISSED		3	/* intervals of silence before forgetting */

void
broker_init(struct broker *br, double interval)
{
	memset(br, 0, sizeof(*br));
	TAILQ_INIT(&br->br_nodes);
	TAILQ_INIT(&br->br_jobs);
	br->br_next_node = br->br_next_job = 1;
	br->br_interval = interval;
	/* An assignment the node never confirmed is retried after this. */
	br->br_assign_timeout = interval < 5 ? interval + 1 : 5;
}

void
broker_fini(struct broker *br)
{
	struct broker_node *n;
	struct broker_job *j;

	while ((n = TAILQ_FIRST(&br->br_nodes)) != NULL) {
		TAILQ_REMOVE(&br->br_nodes, n, bn_entry);
		free(n);
	}
	while ((j = TAILQ_FIRST(&br->br_jobs)) != NULL) {
		TAILQ_REMOVE(&br->br_jobs, j, bj_entry);
		free(j);
	}
}

static struct broker_node *
node_find(struct broker *br, uint32_t id)
{
	struct broker_node *n;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (n->bn_id == id)
			return n;
	return NULL;
}

struct broker_job *
broker_job_find(struct broker *br, uint32_t id)
{
	struct broker_job *j;

	TAILQ_FOREACH(j, &br->br_jobs, bj_entry)
		if (j->bj_id == id)
			return j;
	return NULL;
}

int
broker_node_available(const struct broker_node *n)
{
	return n->bn_state == PROTO_NS_IDLE ||
	    n->bn_state == PROTO_NS_RUNNING ||
	    n->bn_state == PROTO_NS_SWITCHING;
}

struct broker_node *
broker_node_register(struct broker *br, const struct proto_node_reg *r,
    const struct msg_addr *from, double now)
{
	struct broker_node *n = NULL, *same_addr = NULL, *it;

	TAILQ_FOREACH(it, &br->br_nodes, bn_entry) {
		if (r->nr_node != 0 && it->bn_id == r->nr_node)
			n = it;
		if (msg_addr_eq(&it->bn_addr, from))
			same_addr = it;
	}
	/* An id now held by another address is not honoured. */
	if (n != NULL && !msg_addr_eq(&n->bn_addr, from))
		n = NULL;
	if (n == NULL)
		n = same_addr;	/* restarted node manager, same place */
	if (n == NULL) {
		if (br->br_nnodes >= NODES_MAX ||
		    (n = calloc(1, sizeof(*n))) == NULL)
			return NULL;
		/* After our own restart, nodes keep the ids they had. */
		n->bn_id = r->nr_node != 0 && node_find(br, r->nr_node) ==
		    NULL ? r->nr_node : br->br_next_node;
		if (n->bn_id >= br->br_next_node)
			br->br_next_node = n->bn_id + 1;
		n->bn_addr = *from;
		TAILQ_INSERT_TAIL(&br->br_nodes, n, bn_entry);
		br->br_nnodes++;
		br->br_epoch++;
	}
	if (n->bn_state != r->nr_state || n->bn_job != r->nr_job ||
	    n->bn_boot != r->nr_boot)
		br->br_epoch++;
	n->bn_boot = r->nr_boot;
	strlcpy(n->bn_host, r->nr_host, sizeof(n->bn_host));
	n->bn_state = r->nr_state;
	n->bn_job = r->nr_job;
	n->bn_load_milli = r->nr_load_milli;
	n->bn_idle = r->nr_idle;
	n->bn_users = r->nr_users;
	n->bn_pairs = r->nr_pairs;
	n->bn_switches = r->nr_switches;
	n->bn_seen = now;
	/* The node says what it runs now: our assignment is settled. */
	if (n->bn_assigned != 0 && (n->bn_job == n->bn_assigned ||
	    n->bn_state == PROTO_NS_BUSY))
		n->bn_assigned = 0;
	return n;
}

struct broker_job *
broker_job_register(struct broker *br, const struct proto_job_reg *r,
    const char *user, const struct msg_addr *from, double now,
    const char **why)
{
	struct broker_job *j = NULL, *o;
	uint32_t mine = 0;

	if (r->jr_pri < 1 || r->jr_pri > BROKER_PRI_MAX) {
		*why = "priority must be 1 to 1000";
		return NULL;
	}
	if (r->jr_job != 0 && (j = broker_job_find(br, r->jr_job)) != NULL &&
	    strcmp(j->bj_user, user) != 0) {
		*why = "job id belongs to another user";
		return NULL;
	}
	if (j != NULL && j->bj_boot != r->jr_boot)
		j = NULL;	/* same id, another job manager: new id */
	/*
	 * A new job the job manager announces again, its first answer
	 * lost or late: the job it registered already, not another.  The
	 * same job manager: the same user, boot number and address.
	 */
	if (r->jr_job == 0)
		TAILQ_FOREACH(o, &br->br_jobs, bj_entry)
			if (o->bj_boot == r->jr_boot &&
			    msg_addr_eq(&o->bj_addr, from) &&
			    strcmp(o->bj_user, user) == 0) {
				j = o;
				break;
			}
	if (j == NULL) {
		/* One user may not fill the table that every user shares. */
		TAILQ_FOREACH(o, &br->br_jobs, bj_entry)
			if (strcmp(o->bj_user, user) == 0)
				mine++;
		if (br->br_user_jobs != 0 && mine >= br->br_user_jobs) {
			*why = "too many jobs of this user (user_jobs)";
			return NULL;
		}
		if (br->br_njobs >= JOBS_MAX) {
			*why = "too many jobs";
			return NULL;
		}
		if ((j = calloc(1, sizeof(*j))) == NULL) {
			*why = "out of memory";
			return NULL;
		}
		j->bj_id = r->jr_job != 0 &&
		    broker_job_find(br, r->jr_job) == NULL ? r->jr_job :
		    br->br_next_job;
		if (j->bj_id >= br->br_next_job)
			br->br_next_job = j->bj_id + 1;
		strlcpy(j->bj_user, user, sizeof(j->bj_user));
		j->bj_boot = r->jr_boot;
		j->bj_registered = now;
		TAILQ_INSERT_TAIL(&br->br_jobs, j, bj_entry);
		br->br_njobs++;
		br->br_epoch++;
	}
	j->bj_addr = *from;
	j->bj_max = r->jr_max;
	j->bj_pri = r->jr_pri;
	j->bj_start_ms = r->jr_start_ms;
	strlcpy(j->bj_command, r->jr_command, sizeof(j->bj_command));
	j->bj_seen = now;
	return j;
}

static void
job_remove(struct broker *br, struct broker_job *j)
{
	struct broker_node *n;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (n->bn_assigned == j->bj_id)
			n->bn_assigned = 0;
	TAILQ_REMOVE(&br->br_jobs, j, bj_entry);
	br->br_njobs--;
	br->br_epoch++;
	free(j);
}

int
broker_job_unregister(struct broker *br, uint32_t id, const char *user,
    const char **why)
{
	struct broker_job *j;

	if ((j = broker_job_find(br, id)) == NULL) {
		*why = "no such job";
		return -1;
	}
	if (strcmp(j->bj_user, user) != 0) {
		*why = "not your job";
		return -1;
	}
	job_remove(br, j);
	return 0;
}

int
broker_job_withdraw(struct broker *br, const char *user,
    const struct msg_addr *from)
{
	struct broker_job *j, *jn;
	int n = 0;

	TAILQ_FOREACH_SAFE(j, &br->br_jobs, bj_entry, jn)
		if (strcmp(j->bj_user, user) == 0 &&
		    msg_addr_eq(&j->bj_addr, from)) {
			job_remove(br, j);
			n++;
		}
	return n;
}

int
broker_expire(struct broker *br, double now)
{
	struct broker_node *n, *nn;
	struct broker_job *j, *jn;
	double limit = MISSED * br->br_interval;
	int gone = 0;

	TAILQ_FOREACH_SAFE(n, &br->br_nodes, bn_entry, nn)
		if (now - n->bn_seen > limit) {
			TAILQ_REMOVE(&br->br_nodes, n, bn_entry);
			br->br_nnodes--;
			br->br_epoch++;
			free(n);
			gone++;
		}
	TAILQ_FOREACH_SAFE(j, &br->br_jobs, bj_entry, jn)
		if (now - j->bj_seen > limit) {
			job_remove(br, j);
			gone++;
		}
	return gone;
}

/* The job a node counts for: what we assigned, else what it runs. */
static uint32_t
node_job(const struct broker_node *n, double now, double timeout)
{
	if (n->bn_assigned != 0 && now - n->bn_assigned_at < timeout)
		return n->bn_assigned;
	if (n->bn_state == PROTO_NS_RUNNING ||
	    n->bn_state == PROTO_NS_SWITCHING)
		return n->bn_job;
	return 0;
}

void
broker_recount(struct broker *br, double now)
{
	struct broker_node *n;
	struct broker_job *j;
	uint32_t id;

	TAILQ_FOREACH(j, &br->br_jobs, bj_entry)
		j->bj_count = 0;
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		if (n->bn_assigned != 0 &&
		    now - n->bn_assigned_at >= br->br_assign_timeout)
			n->bn_assigned = 0;	/* never confirmed */
		if (!broker_node_available(n))
			continue;
		id = node_job(n, now, br->br_assign_timeout);
		if (id != 0 && (j = broker_job_find(br, id)) != NULL)
			j->bj_count++;
	}
}

static void
assign(struct broker *br, struct broker_node *n, struct broker_job *j,
    double now, broker_assign_fn *fn, void *arg)
{
	struct broker_job *old;
	uint32_t was = node_job(n, now, br->br_assign_timeout);

	if (was != 0 && (old = broker_job_find(br, was)) != NULL &&
	    old->bj_count > 0)
		old->bj_count--;
	n->bn_assigned = j->bj_id;
	n->bn_assigned_at = now;
	j->bj_count++;
	br->br_epoch++;
	fn(n, j, arg);
}

/* A free node: available, running nothing, not yet given anything. */
static struct broker_node *
free_node(struct broker *br, double now)
{
	struct broker_node *n;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (n->bn_state == PROTO_NS_IDLE &&
		    node_job(n, now, br->br_assign_timeout) == 0)
			return n;
	return NULL;
}

/* A node of the largest job with more than one node, to share. */
static struct broker_node *
node_to_share(struct broker *br, double now)
{
	struct broker_job *j, *big = NULL;
	struct broker_node *n;

	TAILQ_FOREACH(j, &br->br_jobs, bj_entry)
		if (j->bj_count > 1 && (big == NULL ||
		    j->bj_count > big->bj_count))
			big = j;
	if (big == NULL)
		return NULL;
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (broker_node_available(n) &&
		    node_job(n, now, br->br_assign_timeout) == big->bj_id)
			return n;
	return NULL;
}

int
broker_schedule(struct broker *br, double now, broker_assign_fn *fn,
    void *arg)
{
	struct broker_node *n;
	struct broker_job *j, *best;
	double weights[JOBS_MAX], shares[JOBS_MAX], gap, bestgap;
	uint32_t caps[JOBS_MAX], avail = 0, i;
	int assigned = 0;

	broker_recount(br, now);
	if (br->br_njobs == 0)
		return 0;
	/* Every job runs somewhere, oldest first. */
	TAILQ_FOREACH(j, &br->br_jobs, bj_entry) {
		if (j->bj_count > 0)
			continue;
		if ((n = free_node(br, now)) == NULL &&
		    (n = node_to_share(br, now)) == NULL)
			break;
		assign(br, n, j, now, fn, arg);
		assigned++;
	}
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (broker_node_available(n))
			avail++;
	i = 0;
	TAILQ_FOREACH(j, &br->br_jobs, bj_entry) {
		weights[i] = j->bj_pri;
		caps[i++] = j->bj_max;
	}
	if (sched_fair_shares(avail, br->br_njobs, weights, caps,
	    shares) == -1)
		return assigned;
	/* Each free node to the job furthest below its share. */
	while ((n = free_node(br, now)) != NULL) {
		best = NULL;
		bestgap = 0;
		i = 0;
		TAILQ_FOREACH(j, &br->br_jobs, bj_entry) {
			gap = shares[i++] - j->bj_count;
			if ((j->bj_max == 0 || j->bj_count < j->bj_max) &&
			    (best == NULL || gap > bestgap)) {
				best = j;
				bestgap = gap;
			}
		}
		if (best == NULL)
			break;		/* every job is at its cap */
		assign(br, n, best, now, fn, arg);
		assigned++;
	}
	return assigned;
}
