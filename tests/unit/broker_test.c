/* Unit tests of the broker's registry, expiry and global scheduling. */
#include <stdio.h>
#include <string.h>

#include "broker.h"
#include "cookie.h"
#include "tap.h"

static struct msg_addr
addr(int host, int port)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = (uint8_t)host;
	a.ma_port = (uint16_t)port;
	return a;
}

static struct broker_node *
node(struct broker *br, int host, uint32_t id, uint8_t state, uint32_t job,
    double now)
{
	struct proto_node_reg r;
	struct msg_addr a = addr(host, 7411);

	memset(&r, 0, sizeof(r));
	r.nr_node = id;
	r.nr_boot = (uint64_t)host;
	snprintf(r.nr_host, sizeof(r.nr_host), "127.0.0.%d", host);
	r.nr_state = state;
	r.nr_job = job;
	return broker_node_register(br, &r, &a, now);
}

static struct broker_job *
job(struct broker *br, uint32_t id, const char *user, uint32_t max,
    uint32_t pri, double now, const char **why)
{
	static uint64_t boots = 1000;
	struct proto_job_reg r;
	struct msg_addr a = addr(1, 40000 + (int)id);
	struct broker_job *o;

	memset(&r, 0, sizeof(r));
	r.jr_job = id;
	/* Every new job its own job manager; a known one its own again. */
	r.jr_boot = id == 0 ? ++boots : (o = broker_job_find(br, id)) !=
	    NULL ? o->bj_boot : 77;
	r.jr_max = max;
	r.jr_pri = pri;
	strlcpy(r.jr_command, "queens 12", sizeof(r.jr_command));
	return broker_job_register(br, &r, user, &a, now, why);
}

static int assigned[32];	/* job given to node id, by the callback */
static int nassigned;

static int slot_job[4][8];	/* job given to node id's processor */
static int rooms;		/* assignments that make room */

static void
on_assign(struct broker_node *n, uint16_t slot, struct broker_job *j,
    int room, void *arg)
{
	(void)arg;
	rooms += room;
	if (n->bn_id < 32)
		assigned[n->bn_id] = (int)j->bj_id;
	if (n->bn_id < 4 && slot < 8)
		slot_job[n->bn_id][slot] = (int)j->bj_id;
	nassigned++;
}

/* A node of total processors, lent of them, each running jobs[i]. */
static struct broker_node *
multi(struct broker *br, int host, uint32_t id, uint16_t total,
    uint16_t lent, const uint32_t *jobs, double now)
{
	static struct proto_node_reg r;
	struct msg_addr a = addr(host, 7411);
	uint16_t i;

	memset(&r, 0, sizeof(r));
	r.nr_node = id;
	r.nr_boot = (uint64_t)host;
	snprintf(r.nr_host, sizeof(r.nr_host), "127.0.0.%d", host);
	r.nr_total = total;
	r.nr_lent = lent;
	r.nr_nslots = total;
	r.nr_state = lent > 0 ? PROTO_NS_IDLE : PROTO_NS_BUSY;
	for (i = 0; i < total; i++) {
		r.nr_slots[i].ps_state = i >= lent ? PROTO_NS_BUSY :
		    jobs != NULL && jobs[i] != 0 ? PROTO_NS_RUNNING :
		    PROTO_NS_IDLE;
		r.nr_slots[i].ps_job = i < lent && jobs != NULL ? jobs[i] : 0;
		if (r.nr_slots[i].ps_state == PROTO_NS_RUNNING)
			r.nr_state = PROTO_NS_RUNNING;
	}
	return broker_node_register(br, &r, &a, now);
}

/* Nodes confirm what they were given, as real node managers do. */
static void
confirm(struct broker *br, double now)
{
	struct broker_node *n;
	int host;

	TAILQ_FOREACH(n, &br->br_nodes, bn_entry) {
		host = n->bn_addr.ma_addr[3];
		if (n->bn_nslots > 0 && n->bn_slots[0].bs_assigned != 0)
			node(br, host, n->bn_id, PROTO_NS_RUNNING,
			    n->bn_slots[0].bs_assigned, now);
	}
}

static uint32_t
count(struct broker *br, uint32_t id, double now)
{
	struct broker_job *j;

	broker_recount(br, now);
	j = broker_job_find(br, id);
	return j ? j->bj_count : 0;
}

/* Processors: the unit the broker counts and gives out. */
static void
test_slots(void)
{
	struct broker br;
	struct broker_node *a, *b;
	struct broker_job *j1, *j2;
	const char *why;
	uint32_t run[4], i;

	broker_init(&br, 1.0);
	memset(slot_job, 0, sizeof(slot_job));
	a = multi(&br, 2, 0, 4, 4, NULL, 0);
	b = multi(&br, 3, 0, 4, 2, NULL, 0);
	ok(a != NULL && b != NULL && a->bn_nslots == 4 && b->bn_lent == 2,
	    "nodes of 4 processors, one lending 2");
	j1 = job(&br, 0, "ann", 0, 1, 0, &why);
	nassigned = 0;
	broker_schedule(&br, 0, on_assign, NULL);
	ok(nassigned == 6 && j1->bj_count == 6,
	    "the first job gets every lent processor: 6 (%d)", nassigned);
	ok(slot_job[1][0] == 1 && slot_job[1][3] == 1 &&
	    slot_job[2][1] == 1 && slot_job[2][2] == 0,
	    "each lent processor is assigned, none kept by the owner");
	for (i = 0; i < 4; i++)
		run[i] = 1;
	a = multi(&br, 2, a->bn_id, 4, 4, run, 0.1);
	b = multi(&br, 3, b->bn_id, 4, 2, run, 0.1);
	ok(count(&br, 1, 0.1) == 6, "confirmed: job 1 counts 6 processors");
	j2 = job(&br, 0, "bob", 0, 1, 0.2, &why);
	nassigned = 0;
	broker_schedule(&br, 0.2, on_assign, NULL);
	ok(nassigned == 1 && j2->bj_count == 1 && j1->bj_count == 5,
	    "a second job is started on one processor taken from the first");
	ok(broker_node_runs(a, j2->bj_id) || broker_node_runs(b, j2->bj_id),
	    "on a node that now runs both jobs");
	/* One processor stopping, three idle: the idle ones can be given. */
	{
		static struct proto_node_reg r;
		struct msg_addr ad = addr(4, 7411);
		struct broker_node *c;

		memset(&r, 0, sizeof(r));
		r.nr_boot = 4;
		strlcpy(r.nr_host, "127.0.0.4", sizeof(r.nr_host));
		r.nr_total = r.nr_lent = r.nr_nslots = 4;
		r.nr_state = PROTO_NS_STOPPING;
		r.nr_slots[0].ps_state = PROTO_NS_STOPPING;
		r.nr_slots[0].ps_job = 1;
		for (i = 1; i < 4; i++)
			r.nr_slots[i].ps_state = PROTO_NS_IDLE;
		c = broker_node_register(&br, &r, &ad, 0.25);
		nassigned = 0;
		broker_schedule(&br, 0.25, on_assign, NULL);
		ok(c != NULL && nassigned == 3 && c->bn_slots[0].bs_assigned ==
		    0 && c->bn_slots[3].bs_assigned != 0,
		    "a node stopping one worker has its 3 idle processors "
		    "given out (%d)", nassigned);
	}
	b = multi(&br, 3, b->bn_id, 4, 0, NULL, 0.3);
	ok(b->bn_state == PROTO_NS_BUSY && count(&br, 1, 0.3) <= 4,
	    "a node that lends nothing counts for no job");
	broker_fini(&br);
}


/* A node lending mem MiB, as multi() makes it. */
static struct broker_node *
multi_mem(struct broker *br, int host, uint32_t id, uint16_t total,
    uint16_t lent, uint32_t mem, double now)
{
	struct broker_node *n = multi(br, host, id, total, lent, NULL, now);

	if (n != NULL)
		n->bn_mem_mb = mem;
	return n;
}

static struct broker_job *
job_needs(struct broker *br, const char *user, uint32_t max, uint16_t cpus,
    uint32_t mem, double now)
{
	static uint64_t boots = 5000;
	struct proto_job_reg r;
	struct msg_addr a = addr(1, 41000 + (int)(boots % 1000));
	const char *why;

	memset(&r, 0, sizeof(r));
	r.jr_boot = ++boots;
	r.jr_max = max;
	r.jr_pri = 1;
	r.jr_cpus = cpus;
	r.jr_mem_mb = mem;
	strlcpy(r.jr_command, "needs", sizeof(r.jr_command));
	return broker_job_register(br, &r, user, &a, now, &why);
}

/* --cpus and --mem: a job goes only where its workers fit, whole. */
static void
test_needs(void)
{
	struct broker br;
	struct broker_node *a, *b, *c;
	struct broker_job *j, *k;
	int i;

	broker_init(&br, 1.0);
	memset(slot_job, 0, sizeof(slot_job));
	a = multi_mem(&br, 2, 0, 4, 1, 64000, 0);	/* 1 lent, much memory */
	b = multi_mem(&br, 3, 0, 4, 4, 1000, 0);	/* 4 lent, 1000 MiB */
	c = multi_mem(&br, 4, 0, 4, 4, 8000, 0);	/* 4 lent, 8000 MiB */
	j = job_needs(&br, "ann", 1, 3, 4096, 0);
	ok(a != NULL && b != NULL && c != NULL && j != NULL &&
	    j->bj_cpus == 3 && j->bj_mem_mb == 4096,
	    "a job of one worker that takes 3 processors and 4096 MiB");
	ok(!broker_job_fits(&br, a, j, 0) && !broker_job_fits(&br, b, j, 0) &&
	    broker_job_fits(&br, c, j, 0),
	    "it fits only the node that lends 3 processors and 4096 MiB");
	nassigned = 0;
	broker_schedule(&br, 0, on_assign, NULL);
	ok(nassigned == 1 && slot_job[a->bn_id][0] == 0 &&
	    slot_job[b->bn_id][0] == 0 && slot_job[c->bn_id][0] == (int)j->bj_id,
	    "one assignment, to that node (%d)", nassigned);
	for (i = 0; i < 4 && c->bn_slots[i].bs_assigned == j->bj_id; i++)
		;
	ok(i == 3 && j->bj_count == 3,
	    "3 of its processors count for the job, held for one worker "
	    "(%d, count %u)", i, j->bj_count);
	ok(broker_job_cap(j) == 3, "its cap is in processors: 1 x 3");
	ok(!broker_job_fits(&br, c, j, 0),
	    "another worker of it no longer fits there (1 free)");
	k = job_needs(&br, "bob", 0, 1, 0, 0.1);
	nassigned = 0;
	broker_schedule(&br, 0.1, on_assign, NULL);
	ok(k != NULL && k->bj_count == 6 && j->bj_count == 3,
	    "a plain job gets every other lent processor (%u)",
	    k != NULL ? k->bj_count : 0);
	broker_fini(&br);

	broker_init(&br, 1.0);
	memset(slot_job, 0, sizeof(slot_job));
	b = multi_mem(&br, 3, 0, 4, 4, 1000, 0);
	j = job_needs(&br, "ann", 0, 1, 2048, 0);
	nassigned = 0;
	broker_schedule(&br, 0, on_assign, NULL);
	ok(j != NULL && nassigned == 0 && j->bj_count == 0 &&
	    j->bj_pending == PROTO_PENDING_NOFIT,
	    "a job that needs more memory than any node lends waits: no-fit");
	j = job_needs(&br, "ann", 0, 8, 0, 0);
	nassigned = 0;
	broker_schedule(&br, 0, on_assign, NULL);
	ok(j != NULL && nassigned == 0 && j->bj_pending == PROTO_PENDING_NOFIT,
	    "and so does one that takes more processors than any node has");
	k = job_needs(&br, "bob", 0, 2, 0, 0);
	nassigned = 0;
	broker_schedule(&br, 0, on_assign, NULL);
	ok(k != NULL && k->bj_count == 4 && k->bj_pending == PROTO_PENDING_NONE,
	    "one of 2 processors gets all 4 there, as two workers");
	{
		uint32_t run[4] = { 5, 5, 5, 5 };

		b = multi(&br, 3, b->bn_id, 4, 4, run, 0.1);
		b->bn_mem_mb = 1000;
	}
	j = job_needs(&br, "cy", 0, 1, 0, 0.1);
	broker_schedule(&br, 0.1, on_assign, NULL);
	ok(j != NULL && j->bj_count > 0 && j->bj_pending == PROTO_PENDING_NONE,
	    "a plain job is given a processor shared from the largest job");
	broker_fini(&br);

	/* No node at all: a plain job waits for one. */
	broker_init(&br, 1.0);
	j = job_needs(&br, "ann", 0, 1, 0, 0);
	broker_schedule(&br, 0, on_assign, NULL);
	ok(j != NULL && j->bj_count == 0 && j->bj_pending == PROTO_PENDING_WAITING,
	    "with no node, a plain job is waiting");
	broker_fini(&br);

	/* A full cluster: room is made for a first worker of 3. */
	broker_init(&br, 1.0);
	{
		uint32_t run[4] = { 1, 1, 1, 1 };

		k = job_needs(&br, "bob", 0, 1, 0, 0);
		a = multi(&br, 2, 0, 4, 4, run, 0);
		b = multi(&br, 3, 0, 4, 4, run, 0);
		a->bn_mem_mb = 1000;
		b->bn_mem_mb = 8000;
		ok(count(&br, k->bj_id, 0) == 8,
		    "a plain job runs on all 8 processors of 2 nodes");
		j = job_needs(&br, "ann", 0, 3, 4096, 0);
		nassigned = rooms = 0;
		broker_schedule(&br, 0, on_assign, NULL);
		ok(nassigned == 1 && rooms == 1 && j->bj_count == 3 &&
		    k->bj_count == 5,
		    "a job of 3 processors and 4096 MiB is given 3 on the "
		    "node with the memory, making room (%d, %d, %u, %u)",
		    nassigned, rooms, j->bj_count, k->bj_count);
		for (i = 0; i < 4; i++)
			if (a->bn_slots[i].bs_assigned == j->bj_id)
				break;
		ok(i == 4, "none on the node without it");
	}
	broker_fini(&br);
}

/*
 * A node not heard from for more than a register interval (and a
 * quarter) is given no new work, but still listed until 3 intervals.
 */
static void
test_quiet(void)
{
	struct broker br;
	struct broker_node *a, *b;
	struct broker_job *j, *k;
	const char *why = NULL;

	broker_init(&br, 10.0);
	memset(assigned, 0, sizeof(assigned));
	nassigned = 0;
	a = node(&br, 2, 0, PROTO_NS_IDLE, 0, 0);
	b = node(&br, 3, 0, PROTO_NS_IDLE, 0, 0);
	ok(!broker_node_quiet(&br, a, 12.5), "heard 12.5 s ago of 10: not "
	    "quiet");
	ok(broker_node_quiet(&br, a, 12.6), "12.6 s: quiet");
	br.br_interval = 1;
	ok(!broker_node_quiet(&br, a, 2.0) && broker_node_quiet(&br, a, 2.1),
	    "an interval of 1 s: quiet after 2 s (a second late at least)");
	br.br_interval = 0.5;
	ok(!broker_node_quiet(&br, a, 1.0) && broker_node_quiet(&br, a, 1.1),
	    "of 0.5 s: after 1 s (an interval late at most)");
	br.br_interval = 10;
	/* b registers again at 10; a is silent since 0. */
	b = node(&br, 3, b->bn_id, PROTO_NS_IDLE, 0, 10);
	j = job(&br, 0, "ann", 0, 1, 13, &why);
	ok(j != NULL, "a job at 13 s");
	broker_schedule(&br, 13, on_assign, NULL);
	is_int(assigned[a->bn_id], 0, "the node silent for 13 s gets nothing");
	is_int(assigned[b->bn_id], (int)j->bj_id, "the other gets the job");
	is_int(nassigned, 1, "one assignment");
	is_int(br.br_nnodes, 2, "the quiet node is still listed");
	is_int(broker_expire(&br, 13, NULL, NULL), 0, "and not forgotten");
	/* A second job, no free processor: not the quiet node's. */
	k = job(&br, 0, "bob", 0, 1, 14, &why);
	nassigned = 0;
	broker_schedule(&br, 14, on_assign, NULL);
	is_int(assigned[a->bn_id], 0, "a second job: still nothing for it");
	/* It registers again: work at once. */
	a = node(&br, 2, a->bn_id, PROTO_NS_IDLE, 0, 15);
	nassigned = 0;
	broker_schedule(&br, 15, on_assign, NULL);
	ok(assigned[a->bn_id] == (int)k->bj_id && nassigned == 1,
	    "heard again, it is given the waiting job");
	/* Silent for 3 intervals: forgotten as before. */
	(void)broker_expire(&br, 46, NULL, NULL);
	is_int(br.br_nnodes, 0, "both nodes forgotten after 3 intervals");
	broker_fini(&br);
}

int
main(void)
{
	struct broker br;
	struct broker_node *n, *n2;
	struct broker_job *j1, *j2, *j3;
	const char *why = NULL;
	int i;

	test_slots();
	test_needs();
	test_quiet();
	broker_init(&br, 1.0);
	n = node(&br, 2, 0, PROTO_NS_IDLE, 0, 0);
	ok(n != NULL && n->bn_id == 1, "a new node gets id 1");
	n2 = node(&br, 3, 0, PROTO_NS_IDLE, 0, 0);
	ok(n2 != NULL && n2->bn_id == 2, "the next gets id 2");
	ok(node(&br, 2, 1, PROTO_NS_IDLE, 0, 0.5) == n,
	    "re-registration finds the same node");
	ok(node(&br, 9, 1, PROTO_NS_IDLE, 0, 0.5)->bn_id != 1,
	    "another address cannot take id 1");
	is_int(br.br_nnodes, 3, "three nodes");

	broker_fini(&br);
	broker_init(&br, 1.0);
	ok(node(&br, 5, 7, PROTO_NS_IDLE, 0, 0)->bn_id == 7,
	    "after a broker restart a node keeps its id");
	ok(node(&br, 6, 0, PROTO_NS_IDLE, 0, 0)->bn_id == 8,
	    "and new ids come after it");
	j1 = job(&br, 0, "ann", 0, 1, 0, &why);
	ok(j1 != NULL && j1->bj_id == 1, "a new job gets id 1");
	ok(job(&br, 1, "bob", 0, 1, 0, &why) == NULL &&
	    strcmp(why, "job id belongs to another user") == 0,
	    "another user cannot re-register ann's job");
	ok(job(&br, 1, "ann", 0, 1, 0.5, &why) == j1,
	    "ann re-registers her job");
	j2 = job(&br, 12, "bob", 0, 1, 0, &why);
	ok(j2 != NULL && j2->bj_id == 12,
	    "after a broker restart a job keeps its id");
	ok(broker_job_unregister(&br, 12, "ann", &why) == -1,
	    "ann cannot end bob's job");
	ok(broker_job_unregister(&br, 12, "bob", &why) == 0,
	    "bob ends his job");
	ok(broker_job_unregister(&br, 12, "bob", &why) == -1,
	    "and it is gone");
	{
		struct proto_job_reg r;
		struct msg_addr a = addr(1, 39999);
		struct broker_job *w;

		memset(&r, 0, sizeof(r));
		r.jr_boot = 4242;
		r.jr_pri = 1;
		w = broker_job_register(&br, &r, "ann", &a, 0.1, &why);
		ok(w != NULL && broker_job_register(&br, &r, "ann", &a, 0.2,
		    &why) == w, "a new job registered twice is one job");
		ok(broker_job_register(&br, &r, "bob", &a, 0.2, &why) != w,
		    "another user's with the same boot number is not it");
		{
			struct msg_addr b = addr(1, 40000);
			struct broker_job *o;

			o = broker_job_register(&br, &r, "ann", &b, 0.2, &why);
			ok(o != NULL && o != w, "nor another job manager's of "
			    "hers with the same boot number");
			is_int(broker_job_withdraw(&br, "ann", &b), 1,
			    "which withdraws its own");
		}
		is_int(broker_job_withdraw(&br, "ann", &a), 1,
		    "ann's job manager withdraws its job");
		is_int(broker_job_withdraw(&br, "ann", &a), 0,
		    "and nothing is left of it");
		is_int(broker_job_withdraw(&br, "bob", &a), 1,
		    "bob's is his to withdraw");
	}
	is_int(broker_expire(&br, 2.9, NULL, NULL), 0, "nothing expires within 3 intervals");
	is_int(broker_expire(&br, 3.6, NULL, NULL), 3, "silent nodes and jobs expire");
	broker_fini(&br);

	/* Scheduling: four idle nodes, one job: it gets every node. */
	broker_init(&br, 1.0);
	for (i = 2; i <= 5; i++)
		node(&br, i, 0, PROTO_NS_IDLE, 0, 0);
	node(&br, 6, 0, PROTO_NS_BUSY, 0, 0);
	j1 = job(&br, 0, "ann", 0, 1, 0, &why);
	memset(assigned, 0, sizeof(assigned));
	nassigned = 0;
	is_int(broker_schedule(&br, 0.1, on_assign, NULL), 4,
	    "the first job goes to every available node");
	ok(assigned[5] == 0, "not to the busy one");
	is_int(broker_schedule(&br, 0.2, on_assign, NULL), 0,
	    "nothing is assigned twice");
	confirm(&br, 0.3);
	is_int(count(&br, 1, 0.3), 4, "four nodes run job 1");

	/* A second job runs nowhere: it gets a node of the first. */
	j2 = job(&br, 0, "bob", 0, 1, 0.4, &why);
	nassigned = 0;
	is_int(broker_schedule(&br, 0.5, on_assign, NULL), 1,
	    "a job that runs nowhere gets a node");
	is_int(count(&br, 2, 0.5), 1, "job 2 has one node");
	is_int(count(&br, 1, 0.5), 3, "job 1 has three");
	/* That node stops job 1's worker first: job 2 has it meanwhile. */
	TAILQ_FOREACH(n, &br.br_nodes, bn_entry)
		if (assigned[n->bn_id] == 2)
			break;
	ok(n != NULL, "the node given to job 2 is known");
	if (n != NULL)
		node(&br, n->bn_addr.ma_addr[3], n->bn_id, PROTO_NS_STOPPING,
		    1, 0.52);
	nassigned = 0;
	is_int(broker_schedule(&br, 0.54, on_assign, NULL), 0,
	    "no second node for job 2 while its first stops job 1's worker");
	is_int(count(&br, 2, 0.54), 1, "job 2 still has one node");
	is_int(count(&br, 1, 0.54), 3, "job 1 three");
	confirm(&br, 0.6);

	/* A newly idle node goes to the job furthest below its share. */
	node(&br, 7, 0, PROTO_NS_IDLE, 0, 0.7);
	memset(assigned, 0, sizeof(assigned));
	broker_schedule(&br, 0.8, on_assign, NULL);
	n = node(&br, 7, 0, PROTO_NS_IDLE, 0, 0.8);
	is_int(assigned[n->bn_id], 2, "the new node goes to job 2 (1 < 2.5)");
	confirm(&br, 0.9);

	/* An unconfirmed assignment is retried after its timeout. */
	node(&br, 8, 0, PROTO_NS_IDLE, 0, 1.0);
	nassigned = 0;
	broker_schedule(&br, 1.0, on_assign, NULL);
	is_int(nassigned, 1, "node 8 is assigned");
	node(&br, 8, 0, PROTO_NS_IDLE, 0, 1.1);	/* did not take it */
	nassigned = 0;
	broker_schedule(&br, 1.2, on_assign, NULL);
	is_int(nassigned, 0, "not again while the assignment is fresh");
	/* It goes on registering (one silent for an interval gets none). */
	node(&br, 8, 0, PROTO_NS_IDLE, 0, 1.0 + br.br_assign_timeout);
	broker_schedule(&br, 1.0 + br.br_assign_timeout + 0.1, on_assign,
	    NULL);
	is_int(nassigned, 1, "again once it timed out");
	broker_fini(&br);

	/* Caps: a job capped at 1 leaves the other nodes idle or to others. */
	broker_init(&br, 1.0);
	for (i = 2; i <= 5; i++)
		node(&br, i, 0, PROTO_NS_IDLE, 0, 0);
	j3 = job(&br, 0, "ann", 1, 1, 0, &why);
	nassigned = 0;
	is_int(broker_schedule(&br, 0.1, on_assign, NULL), 1,
	    "a job capped at 1 gets one node");
	j1 = job(&br, 0, "bob", 0, 1, 0.2, &why);
	is_int(broker_schedule(&br, 0.3, on_assign, NULL), 3,
	    "the other job gets the rest");
	is_int(count(&br, j3->bj_id, 0.3), 1, "capped job: 1");
	is_int(count(&br, j1->bj_id, 0.3), 3, "other job: 3");
	broker_fini(&br);

	/* Weights: priority 3 against 1 on 8 nodes: 6 and 2. */
	broker_init(&br, 1.0);
	j1 = job(&br, 0, "ann", 0, 3, 0, &why);
	j2 = job(&br, 0, "bob", 0, 1, 0, &why);
	for (i = 2; i <= 9; i++)
		node(&br, i, 0, PROTO_NS_IDLE, 0, 0);
	broker_schedule(&br, 0.1, on_assign, NULL);
	is_int(count(&br, j1->bj_id, 0.1), 6, "priority 3 gets 6 of 8");
	is_int(count(&br, j2->bj_id, 0.1), 2, "priority 1 gets 2 of 8");
	broker_fini(&br);

	/* Quotas: no user fills the table, priorities 1 to 1000. */
	broker_init(&br, 1.0);
	br.br_user_jobs = 3;
	for (i = 0; i < 3; i++)
		ok(job(&br, 0, "alice", 0, 1, 0, &why) != NULL,
		    "alice's job %d of 3", i + 1);
	ok(job(&br, 0, "alice", 0, 1, 0, &why) == NULL &&
	    strstr(why, "too many jobs of this user") != NULL,
	    "her 4th is refused (%s)", why);
	j1 = job(&br, 0, "bob", 0, 1, 0, &why);
	ok(j1 != NULL, "bob still registers a job");
	ok(job(&br, j1->bj_id, "bob", 0, 1, 0.5, &why) == j1,
	    "and re-registers it: re-registration counts no new job");
	ok(job(&br, 0, "root", 0, 1001, 0, &why) == NULL &&
	    strcmp(why, "priority must be 1 to 1000") == 0,
	    "priority 1001 is refused");
	ok(job(&br, 0, "root", 0, 1000, 0, &why) != NULL,
	    "priority 1000 is accepted");
	br.br_user_jobs = 0;
	ok(job(&br, 0, "alice", 0, 1, 0, &why) != NULL,
	    "user_jobs 0: no limit");
	broker_fini(&br);

	/*
	 * The tables are as large as configured: 513 nodes (one more than a
	 * datagram of rows, the old fixed cap) and nodes_max refused after.
	 */
	{
		struct proto_node_reg r;
		struct msg_addr a;
		struct broker_node *got;
		uint32_t k, bad = 0;

		broker_init(&br, 60.0);
		ok(br.br_nodes_max == BROKER_NODES_MAX &&
		    br.br_jobs_max == BROKER_JOBS_MAX &&
		    BROKER_NODES_MAX >= 100000 && BROKER_JOBS_MAX >= 10000,
		    "default limits: 100000 nodes, 10000 jobs");
		br.br_nodes_max = 3000;
		memset(&r, 0, sizeof(r));
		r.nr_state = PROTO_NS_IDLE;
		a = addr(0, 7411);
		a.ma_addr[1] = 2;
		for (k = 0; k < 3000; k++) {
			a.ma_addr[2] = (uint8_t)(k >> 8);
			a.ma_addr[3] = (uint8_t)k;
			r.nr_boot = k;
			if (broker_node_register(&br, &r, &a, 0) == NULL)
				break;
		}
		is_int(k, 3000, "3000 nodes registered, 513 and on too");
		ok(br.br_nnodes == 3000, "3000 in the table");
		a.ma_port = 7412;
		ok(broker_node_register(&br, &r, &a, 0) == NULL,
		    "the 3001st is refused: nodes_max");
		/* Each found by address and by id, each once. */
		for (k = 0; k < 3000; k++) {
			a.ma_port = 7411;
			a.ma_addr[2] = (uint8_t)(k >> 8);
			a.ma_addr[3] = (uint8_t)k;
			got = broker_node_by_addr(&br, &a);
			if (got == NULL || broker_node_find(&br,
			    got->bn_id) != got || got->bn_boot != k)
				bad++;
			r.nr_boot = k;
			r.nr_node = got ? got->bn_id : 0;
			if (broker_node_register(&br, &r, &a, 1) != got)
				bad++;
		}
		is_int(bad, 0, "each found by address and id; "
		    "re-registration finds it");
		ok(broker_node_find(&br, 3001) == NULL &&
		    broker_node_by_addr(&br, &a) != NULL,
		    "an id never given is not found");
		/* Half fall silent: expired, out of both indexes. */
		for (k = 0; k < 3000; k += 2) {
			a.ma_addr[2] = (uint8_t)(k >> 8);
			a.ma_addr[3] = (uint8_t)k;
			r.nr_boot = k;
			r.nr_node = broker_node_by_addr(&br, &a)->bn_id;
			(void)broker_node_register(&br, &r, &a, 150);
		}
		is_int(broker_expire(&br, 200, NULL, NULL), 1500,
		    "1500 silent nodes expired");
		for (bad = 0, k = 0; k < 3000; k++) {
			a.ma_addr[2] = (uint8_t)(k >> 8);
			a.ma_addr[3] = (uint8_t)k;
			if ((broker_node_by_addr(&br, &a) != NULL) != (k % 2 ==
			    0))
				bad++;
		}
		is_int(bad, 0, "the expired are found no more, the rest are");
		/* Jobs: 600 of one user, beyond a datagram's rows. */
		br.br_user_jobs = 0;
		br.br_jobs_max = 600;
		for (k = 0; k < 600; k++)
			if (job(&br, 0, "alice", 0, 1, 200, &why) == NULL)
				break;
		is_int(k, 600, "600 jobs registered");
		ok(job(&br, 0, "alice", 0, 1, 200, &why) == NULL &&
		    strcmp(why, "too many jobs") == 0,
		    "the 601st refused: jobs_max");
		ok(broker_job_find(&br, 600) != NULL &&
		    broker_job_find(&br, 600)->bj_id == 600,
		    "job 600 found by id");
		ok(broker_schedule(&br, 200, on_assign, NULL) == 1500,
		    "every idle node given a job in one schedule");
		broker_fini(&br);
	}

	/* Cookies: this address, this period or the one before. */
	{
		struct cookie_key bc, other;
		struct msg_addr a = addr(3, 40000), b = addr(3, 40001);
		uint8_t c[PROTO_COOKIE_LEN];

		cookie_init(&bc);
		cookie_init(&other);
		cookie_make(&bc, &a, 600.0, c);
		ok(cookie_ok(&bc, &a, 600.5, c), "a cookie is good");
		ok(cookie_ok(&bc, &a, 600.0 + COOKIE_PERIOD, c),
		    "and in the next period");
		ok(!cookie_ok(&bc, &a, 600.0 +
		    2 * COOKIE_PERIOD, c), "not two periods later");
		ok(!cookie_ok(&bc, &b, 600.5, c),
		    "not for another port");
		ok(!cookie_ok(&other, &a, 600.5, c),
		    "not under another broker's key");
		c[0] ^= 1;
		ok(!cookie_ok(&bc, &a, 600.5, c), "not changed");
	}
	return tap_done();
}
