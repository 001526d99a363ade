/* broker — registry, expiry and global scheduling of CilkJobBroker. */
#include "broker.h"

#include <stdlib.h>
#include <string.h>

#include "fairshare.h"

#define MISSED		3	/* intervals of silence before forgetting */

void
broker_init(struct broker *br, double interval)
{
	memset(br, 0, sizeof(*br));
	TAILQ_INIT(&br->br_nodes);
	TAILQ_INIT(&br->br_jobs);
	br->br_next_node = br->br_next_job = 1;
	br->br_nodes_max = BROKER_NODES_MAX;
	br->br_jobs_max = BROKER_JOBS_MAX;
	htab_init(&br->br_node_by_id);
	htab_init(&br->br_node_by_addr);
	htab_init(&br->br_job_by_id);
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
		free(n->bn_slots);
		free(n);
	}
	while ((j = TAILQ_FIRST(&br->br_jobs)) != NULL) {
		TAILQ_REMOVE(&br->br_jobs, j, bj_entry);
		free(j);
	}
	htab_fini(&br->br_node_by_id);
	htab_fini(&br->br_node_by_addr);
	htab_fini(&br->br_job_by_id);
	free(br->br_weights);
	free(br->br_shares);
	free(br->br_caps);
	br->br_weights = br->br_shares = NULL;
	br->br_caps = NULL;
	br->br_scratch = 0;
}

static uint64_t
id_hash(const struct htab *h, uint32_t id)
{
	return htab_hash(h, &id, sizeof(id));
}

/* The bytes that make an address: family, address, port. */
static uint64_t
addr_hash(const struct htab *h, const struct msg_addr *a)
{
	uint8_t k[1 + 16 + 2];

	k[0] = a->ma_family;
	memcpy(k + 1, a->ma_addr, 16);
	memcpy(k + 17, &a->ma_port, 2);
	return htab_hash(h, k, sizeof(k));
}

static int
node_id_is(const void *elem, const void *key)
{
	return ((const struct broker_node *)elem)->bn_id ==
	    *(const uint32_t *)key;
}

static int
node_addr_is(const void *elem, const void *key)
{
	return msg_addr_eq(&((const struct broker_node *)elem)->bn_addr, key);
}

static int
job_id_is(const void *elem, const void *key)
{
	return ((const struct broker_job *)elem)->bj_id ==
	    *(const uint32_t *)key;
}

struct broker_node *
broker_node_find(struct broker *br, uint32_t id)
{
	return htab_find(&br->br_node_by_id, id_hash(&br->br_node_by_id, id),
	    node_id_is, &id);
}

struct broker_node *
broker_node_by_addr(struct broker *br, const struct msg_addr *a)
{
	return htab_find(&br->br_node_by_addr,
	    addr_hash(&br->br_node_by_addr, a), node_addr_is, a);
}

struct broker_job *
broker_job_find(struct broker *br, uint32_t id)
{
	return htab_find(&br->br_job_by_id, id_hash(&br->br_job_by_id, id),
	    job_id_is, &id);
}

/* Into the list and both indexes, or nowhere. */
static int
node_insert(struct broker *br, struct broker_node *n)
{
	if (htab_add(&br->br_node_by_id, id_hash(&br->br_node_by_id,
	    n->bn_id), n) == -1)
		return -1;
	if (htab_add(&br->br_node_by_addr, addr_hash(&br->br_node_by_addr,
	    &n->bn_addr), n) == -1) {
		(void)htab_del(&br->br_node_by_id, id_hash(&br->br_node_by_id,
		    n->bn_id), n);
		return -1;
	}
	TAILQ_INSERT_TAIL(&br->br_nodes, n, bn_entry);
	br->br_nnodes++;
	br->br_epoch++;
	br->br_members++;
	return 0;
}

static void
node_remove(struct broker *br, struct broker_node *n)
{
	(void)htab_del(&br->br_node_by_id, id_hash(&br->br_node_by_id,
	    n->bn_id), n);
	(void)htab_del(&br->br_node_by_addr, addr_hash(&br->br_node_by_addr,
	    &n->bn_addr), n);
	TAILQ_REMOVE(&br->br_nodes, n, bn_entry);
	br->br_nnodes--;
	br->br_epoch++;
	br->br_members++;
	free(n->bn_slots);
	free(n);
}

int
broker_slot_available(const struct broker_slot *s)
{
	return s->bs_state == PROTO_NS_IDLE ||
	    s->bs_state == PROTO_NS_RUNNING ||
	    s->bs_state == PROTO_NS_SWITCHING;
}

uint32_t
broker_slot_job(const struct broker_slot *s, double now, double timeout)
{
	if (s->bs_assigned != 0 && now - s->bs_assigned_at < timeout)
		return s->bs_assigned;
	if (s->bs_state == PROTO_NS_RUNNING ||
	    s->bs_state == PROTO_NS_SWITCHING)
		return s->bs_job;
	return 0;
}

int
broker_node_runs(const struct broker_node *n, uint32_t job)
{
	uint16_t i;

	for (i = 0; i < n->bn_nslots; i++)
		if (n->bn_slots[i].bs_job == job ||
		    n->bn_slots[i].bs_assigned == job)
			return 1;
	return 0;
}

/*
 * What the node says of its processors; a node of the old kind (total
 * 0) has one, doing what the node does.  Our assignments stand until
 * the processor says what it runs now.
 */
static int
slots_update(struct broker *br, struct broker_node *n,
    const struct proto_node_reg *r)
{
	struct broker_slot *s;
	struct proto_slot one;
	const struct proto_slot *in = r->nr_slots;
	uint16_t k = r->nr_nslots, i;

	n->bn_total = r->nr_total;
	n->bn_lent = r->nr_lent;
	n->bn_mem_mb = r->nr_mem_mb;
	n->bn_unenforced = r->nr_unenforced;
	if (r->nr_total == 0) {
		one.ps_state = r->nr_state;
		one.ps_job = r->nr_job;
		in = &one;
		k = 1;
		n->bn_total = 1;
		n->bn_lent = r->nr_state != PROTO_NS_BUSY;
	}
	if (k > n->bn_cap) {
		if ((s = reallocarray(n->bn_slots, k, sizeof(*s))) == NULL)
			return -1;
		memset(s + n->bn_cap, 0, (size_t)(k - n->bn_cap) * sizeof(*s));
		n->bn_slots = s;
		n->bn_cap = k;
	}
	for (i = 0; i < n->bn_cap; i++) {
		s = &n->bn_slots[i];
		if (i >= k) {
			memset(s, 0, sizeof(*s));
			s->bs_state = PROTO_NS_BUSY;
			continue;
		}
		if (s->bs_state != in[i].ps_state || s->bs_job != in[i].ps_job)
			br->br_epoch++;
		s->bs_state = in[i].ps_state;
		s->bs_job = in[i].ps_job;
		if (s->bs_assigned != 0 && (s->bs_job == s->bs_assigned ||
		    s->bs_state == PROTO_NS_BUSY))
			s->bs_assigned = 0;
	}
	n->bn_nslots = k;
	return 0;
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
	struct broker_node *n;

	/*
	 * The node at this address, whatever id it says: an id now held by
	 * another address is not honoured, and a restarted node manager in
	 * the same place is the same node.
	 */
	if ((n = broker_node_by_addr(br, from)) == NULL) {
		if (br->br_nnodes >= br->br_nodes_max ||
		    (n = calloc(1, sizeof(*n))) == NULL)
			return NULL;
		/* After our own restart, nodes keep the ids they had. */
		n->bn_id = r->nr_node != 0 && broker_node_find(br,
		    r->nr_node) == NULL ? r->nr_node : br->br_next_node;
		n->bn_addr = *from;
		if (node_insert(br, n) == -1) {
			free(n);
			return NULL;
		}
		if (n->bn_id >= br->br_next_node)
			br->br_next_node = n->bn_id + 1;
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
	n->bn_before = 0;	/* heard: no longer as reloaded */
	if (slots_update(br, n, r) == -1)
		return NULL;
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
		if (br->br_njobs >= br->br_jobs_max) {
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
		if (htab_add(&br->br_job_by_id, id_hash(&br->br_job_by_id,
		    j->bj_id), j) == -1) {
			free(j);
			*why = "out of memory";
			return NULL;
		}
		TAILQ_INSERT_TAIL(&br->br_jobs, j, bj_entry);
		br->br_njobs++;
		br->br_epoch++;
	}
	j->bj_addr = *from;
	j->bj_max = r->jr_max;
	j->bj_pri = r->jr_pri;
	j->bj_start_ms = r->jr_start_ms;
	strlcpy(j->bj_command, r->jr_command, sizeof(j->bj_command));
	j->bj_cpus = r->jr_cpus > 0 ? r->jr_cpus : 1;
	j->bj_mem_mb = r->jr_mem_mb;
	j->bj_seen = now;
	return j;
}

int
broker_node_adopt(struct broker *br, struct broker_node *n)
{
	if (n->bn_id == 0 || br->br_nnodes >= br->br_nodes_max ||
	    broker_node_find(br, n->bn_id) != NULL ||
	    broker_node_by_addr(br, &n->bn_addr) != NULL ||
	    node_insert(br, n) == -1)
		return -1;
	if (n->bn_id >= br->br_next_node)
		br->br_next_node = n->bn_id + 1;
	return 0;
}

int
broker_job_adopt(struct broker *br, struct broker_job *j)
{
	if (j->bj_id == 0 || br->br_njobs >= br->br_jobs_max ||
	    broker_job_find(br, j->bj_id) != NULL ||
	    htab_add(&br->br_job_by_id, id_hash(&br->br_job_by_id,
	    j->bj_id), j) == -1)
		return -1;
	TAILQ_INSERT_TAIL(&br->br_jobs, j, bj_entry);
	br->br_njobs++;
	br->br_epoch++;
	if (j->bj_id >= br->br_next_job)
		br->br_next_job = j->bj_id + 1;
	return 0;
}

static void
job_remove(struct broker *br, struct broker_job *j)
{
	struct broker_node *n;
	uint16_t i;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		for (i = 0; i < n->bn_nslots; i++)
			if (n->bn_slots[i].bs_assigned == j->bj_id)
				n->bn_slots[i].bs_assigned = 0;
	(void)htab_del(&br->br_job_by_id, id_hash(&br->br_job_by_id,
	    j->bj_id), j);
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
broker_expire(struct broker *br, double now, broker_gone_fn *fn, void *arg)
{
	struct broker_node *n, *nn;
	struct broker_job *j, *jn;
	double limit = MISSED * br->br_interval;
	int gone = 0;

	TAILQ_FOREACH_SAFE(n, &br->br_nodes, bn_entry, nn)
		if (now - n->bn_seen > limit) {
			if (fn != NULL)
				fn(n, NULL, now - n->bn_seen, arg);
			node_remove(br, n);
			gone++;
		}
	TAILQ_FOREACH_SAFE(j, &br->br_jobs, bj_entry, jn)
		if (now - j->bj_seen > limit) {
			if (fn != NULL)
				fn(NULL, j, now - j->bj_seen, arg);
			job_remove(br, j);
			gone++;
		}
	return gone;
}

void
broker_recount(struct broker *br, double now)
{
	struct broker_node *n;
	struct broker_slot *s;
	struct broker_job *j;
	uint32_t id;
	uint16_t i;

	TAILQ_FOREACH(j, &br->br_jobs, bj_entry)
		j->bj_count = 0;
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		for (i = 0; i < n->bn_nslots; i++) {
			s = &n->bn_slots[i];
			if (s->bs_assigned != 0 &&
			    now - s->bs_assigned_at >= br->br_assign_timeout)
				s->bs_assigned = 0;	/* never confirmed */
			/*
			 * A processor stopping another job's worker for the
			 * one we gave it counts for that one: uncounted, the
			 * job looked as if it ran nowhere and took a
			 * processor of the largest job at every tick until
			 * the first was free.
			 */
			if (!broker_slot_available(s) && s->bs_assigned == 0)
				continue;
			id = broker_slot_job(s, now, br->br_assign_timeout);
			if (id != 0 && (j = broker_job_find(br, id)) != NULL)
				j->bj_count++;
		}
	}
}

/* A processor: node and slot. */
struct at {
	struct broker_node	*n;
	uint16_t		 i;
};

static int
slot_free(const struct broker *br, const struct broker_slot *s, double now)
{
	return s->bs_state == PROTO_NS_IDLE &&
	    broker_slot_job(s, now, br->br_assign_timeout) == 0;
}

int
broker_job_fits(const struct broker *br, const struct broker_node *n,
    const struct broker_job *j, double now)
{
	uint16_t i, k = 0;

	if (n->bn_mem_mb < j->bj_mem_mb)
		return 0;
	for (i = 0; i < n->bn_nslots && k < j->bj_cpus; i++)
		k += slot_free(br, &n->bn_slots[i], now);
	return k >= j->bj_cpus;
}

/*
 * A processor that may be taken to make room for a worker of j: a free
 * one, or one running a worker of one processor of a job that keeps
 * another processor.
 */
static int
slot_takeable(struct broker *br, const struct broker_slot *s,
    const struct broker_job *j, double now)
{
	const struct broker_job *o;
	uint32_t id;

	if (slot_free(br, s, now))
		return 1;
	if (s->bs_state != PROTO_NS_RUNNING)
		return 0;
	id = broker_slot_job(s, now, br->br_assign_timeout);
	return id != 0 && id != j->bj_id &&
	    (o = broker_job_find(br, id)) != NULL && o->bj_cpus <= 1 &&
	    o->bj_count > 1;
}

/* That processor counts for j now, no longer for the job it had. */
static void
give(struct broker *br, struct broker_slot *s, struct broker_job *j,
    double now)
{
	struct broker_job *old;
	uint32_t was = broker_slot_job(s, now, br->br_assign_timeout);

	if (was != 0 && (old = broker_job_find(br, was)) != NULL &&
	    old->bj_count > 0)
		old->bj_count--;
	s->bs_assigned = j->bj_id;
	s->bs_assigned_at = now;
	j->bj_count++;
}

/*
 * The job gets that processor, and a worker taking more than one
 * (--cpus) the node's next free ones as well (or, making room, ones it
 * may take): they count for it until the node says they are held by its
 * worker, or the assignment times out.  Only the first is told: the
 * node holds the others itself.
 */
static void
assign(struct broker *br, const struct at *a, struct broker_job *j,
    int room, double now, broker_assign_fn *fn, void *arg)
{
	struct broker_slot *s;
	uint16_t i, more = j->bj_cpus > 1 ? j->bj_cpus - 1 : 0;

	give(br, &a->n->bn_slots[a->i], j, now);
	for (i = 0; i < a->n->bn_nslots && more > 0; i++) {
		s = &a->n->bn_slots[i];
		if (i == a->i || !(room ? slot_takeable(br, s, j, now) :
		    slot_free(br, s, now)))
			continue;
		give(br, s, j, now);
		more--;
	}
	br->br_epoch++;
	fn(a->n, a->i, j, room, arg);
}

int
broker_node_quiet(const struct broker *br, const struct broker_node *n,
    double now)
{
	double slack = br->br_interval * (BROKER_QUIET - 1);

	/* At least a second late (a loaded host), at most an interval. */
	if (slack < 1)
		slack = br->br_interval < 1 ? br->br_interval : 1;
	return now - n->bn_seen > br->br_interval + slack;
}

/* 1 if n takes no new work: drained, down by itself, or quiet. */
static int
held(const struct broker *br, const struct broker_node *n, double now)
{
	return n->bn_drain || broker_node_quiet(br, n, now);
}

/*
 * Room for a job's first worker that fits nowhere free: a node that
 * lends the memory and has as many processors it may take; its first
 * free one, else the first it may take.
 */
static int
room_slot(struct broker *br, double now, const struct broker_job *j,
    struct at *out)
{
	struct broker_node *n;
	uint16_t i, k;
	int first;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		if (held(br, n, now) || n->bn_mem_mb < j->bj_mem_mb)
			continue;
		first = -1;
		for (i = 0, k = 0; i < n->bn_nslots; i++) {
			if (!slot_takeable(br, &n->bn_slots[i], j, now))
				continue;
			k++;
			if (first == -1 || (slot_free(br, &n->bn_slots[i],
			    now) && !slot_free(br, &n->bn_slots[first], now)))
				first = i;
		}
		if (k >= j->bj_cpus) {
			out->n = n;
			out->i = (uint16_t)first;
			return 1;
		}
	}
	return 0;
}

/* A free processor of a node where a worker of j fits (broker_job_fits). */
static int
fitting_slot(struct broker *br, double now, const struct broker_job *j,
    struct at *out)
{
	struct broker_node *n;
	uint16_t i;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		if (held(br, n, now) || !broker_job_fits(br, n, j, now))
			continue;
		for (i = 0; i < n->bn_nslots; i++)
			if (slot_free(br, &n->bn_slots[i], now)) {
				out->n = n;
				out->i = i;
				return 1;
			}
	}
	return 0;
}

uint32_t
broker_job_cap(const struct broker_job *j)
{
	uint64_t cap = (uint64_t)j->bj_max * j->bj_cpus;

	return cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
}

/* 1 if the job asks for more than one processor or for memory. */
static int
job_needs(const struct broker_job *j)
{
	return j->bj_cpus > 1 || j->bj_mem_mb > 0;
}

/*
 * A free processor: lent, running nothing, not yet given anything.
 * The search goes on from *from (the caller starts it at the list's
 * first node, slot 0) and leaves *from after what it found, so that a
 * loop giving out every free processor walks the list once.
 */
static int
free_slot(struct broker *br, double now, struct at *from, struct at *out)
{
	for (; from->n != NULL;
	    from->n = TAILQ_NEXT(from->n, bn_entry), from->i = 0) {
		/*
		 * By the processor's own state: a node stopping one worker
		 * still has its idle processors to give.  A drained node
		 * has none, nor one quiet for a register interval.
		 */
		for (; !held(br, from->n, now) &&
		    from->i < from->n->bn_nslots;
		    from->i++) {
			if (slot_free(br, &from->n->bn_slots[from->i], now)) {
				*out = *from;
				from->i++;
				return 1;
			}
		}
	}
	return 0;
}

/* Room for every job in broker_schedule's scratch arrays. */
static int
scratch(struct broker *br)
{
	uint32_t want = br->br_scratch ? br->br_scratch : 64;
	void *w, *s, *c;

	while (want < br->br_njobs)
		want *= 2;
	if (want == br->br_scratch)
		return 0;
	if ((w = reallocarray(br->br_weights, want, sizeof(double))) == NULL)
		return -1;
	br->br_weights = w;
	if ((s = reallocarray(br->br_shares, want, sizeof(double))) == NULL)
		return -1;
	br->br_shares = s;
	if ((c = reallocarray(br->br_caps, want, sizeof(uint32_t))) == NULL)
		return -1;
	br->br_caps = c;
	br->br_scratch = want;
	return 0;
}

/* A processor of the largest job with more than one, to share. */
static int
slot_to_share(struct broker *br, double now, struct at *out)
{
	struct broker_job *j, *big = NULL;
	struct broker_node *n;
	uint16_t i;

	TAILQ_FOREACH(j, &br->br_jobs, bj_entry)
		if (j->bj_count > 1 && (big == NULL ||
		    j->bj_count > big->bj_count))
			big = j;
	if (big == NULL)
		return 0;
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		for (i = 0; !held(br, n, now) && i < n->bn_nslots; i++)
			if (broker_slot_available(&n->bn_slots[i]) &&
			    broker_slot_job(&n->bn_slots[i], now,
			    br->br_assign_timeout) == big->bj_id) {
				out->n = n;
				out->i = i;
				return 1;
			}
	}
	return 0;
}

/* 1 if some node that can take work lends what one worker of j takes. */
static int
fits_somewhere(const struct broker *br, const struct broker_job *j,
    double now)
{
	const struct broker_node *n;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (broker_node_available(n) && !held(br, n, now) &&
		    n->bn_lent >= j->bj_cpus &&
		    n->bn_mem_mb >= j->bj_mem_mb)
			return 1;
	return 0;
}

/* Why each job left without a processor has none (CilkPs REASON). */
static void
pending_reasons(struct broker *br, double now)
{
	struct broker_job *j;

	TAILQ_FOREACH(j, &br->br_jobs, bj_entry)
		j->bj_pending = j->bj_count > 0 ? PROTO_PENDING_NONE :
		    job_needs(j) && !fits_somewhere(br, j, now) ?
		    PROTO_PENDING_NOFIT : PROTO_PENDING_WAITING;
}

static int	schedule(struct broker *, double, broker_assign_fn *, void *);

int
broker_schedule(struct broker *br, double now, broker_assign_fn *fn,
    void *arg)
{
	int assigned = schedule(br, now, fn, arg);

	pending_reasons(br, now);
	return assigned;
}

static int
schedule(struct broker *br, double now, broker_assign_fn *fn, void *arg)
{
	struct broker_node *n;
	struct broker_job *j, *best;
	struct at from, f;
	double *weights, *shares, gap, bestgap;
	uint32_t *caps, avail = 0, i;
	uint16_t k;
	int assigned = 0;

	broker_recount(br, now);
	if (br->br_njobs == 0)
		return 0;
	if (scratch(br) == -1)
		return 0;	/* the next tick tries again */
	weights = br->br_weights;
	shares = br->br_shares;
	caps = br->br_caps;
	/* Every job runs somewhere, oldest first. */
	from.n = TAILQ_FIRST(&br->br_nodes);
	from.i = 0;
	TAILQ_FOREACH(j, &br->br_jobs, bj_entry) {
		if (j->bj_count > 0)
			continue;
		/* One that asks for resources waits for a node that has them. */
		if (job_needs(j)) {
			if (fitting_slot(br, now, j, &f)) {
				assign(br, &f, j, 0, now, fn, arg);
				assigned++;
			} else if (room_slot(br, now, j, &f)) {
				assign(br, &f, j, 1, now, fn, arg);
				assigned++;
			}
			continue;
		}
		if (!free_slot(br, now, &from, &f) &&
		    !slot_to_share(br, now, &f))
			break;
		assign(br, &f, j, 0, now, fn, arg);
		assigned++;
	}
	/* A held node's processors count while they run a job. */
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		for (k = 0; k < n->bn_nslots; k++)
			if (broker_slot_available(&n->bn_slots[k]) &&
			    (!held(br, n, now) ||
			    broker_slot_job(&n->bn_slots[k],
			    now, br->br_assign_timeout) != 0))
				avail++;
	i = 0;
	TAILQ_FOREACH(j, &br->br_jobs, bj_entry) {
		weights[i] = j->bj_pri;
		caps[i++] = broker_job_cap(j);
	}
	if (sched_fair_shares(avail, br->br_njobs, weights, caps,
	    shares) == -1)
		return assigned;
	/* Each free processor to the job furthest below its share. */
	from.n = TAILQ_FIRST(&br->br_nodes);
	from.i = 0;
	while (free_slot(br, now, &from, &f)) {
		best = NULL;
		bestgap = 0;
		i = 0;
		TAILQ_FOREACH(j, &br->br_jobs, bj_entry) {
			gap = shares[i++] - j->bj_count;
			if ((j->bj_max == 0 ||
			    j->bj_count < broker_job_cap(j)) &&
			    (!job_needs(j) ||
			    broker_job_fits(br, f.n, j, now)) &&
			    (best == NULL || gap > bestgap)) {
				best = j;
				bestgap = gap;
			}
		}
		if (best == NULL)
			break;		/* every job is at its cap */
		assign(br, &f, best, 0, now, fn, arg);
		assigned++;
	}
	return assigned;
}
