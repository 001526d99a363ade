/*
 * Unit tests of broker_health: who may drain and resume which node, a
 * drained node taking no new work on any path of broker_schedule (free
 * processors, jobs that need resources, making room, sharing a job's
 * processor), drain and drained, a forgotten node listed as down until
 * it registers again or down_keep passes, and a drain that outlives the
 * node's registration.
 */
#include <stdio.h>
#include <string.h>

#include "broker_health.h"
#include "tap.h"

static struct broker		br;
static struct broker_health	bh;
static int			given[16];	/* node id -> assignments */

static struct msg_addr
addr(int host)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = (uint8_t)host;
	a.ma_port = 7411;
	return a;
}

/* Node at 127.0.0.host, "wsHOST", total processors, all lent, slot i
 * running jobs[i] (NULL: all idle). */
static struct broker_node *
node(int host, uint16_t total, const uint32_t *jobs, uint32_t mem,
    double now)
{
	static struct proto_node_reg r;
	struct msg_addr a = addr(host);
	struct broker_node *n;
	uint16_t i;

	memset(&r, 0, sizeof(r));
	r.nr_boot = (uint64_t)host;
	snprintf(r.nr_host, sizeof(r.nr_host), "ws%d", host);
	r.nr_total = r.nr_lent = r.nr_nslots = total;
	r.nr_mem_mb = mem;
	r.nr_state = PROTO_NS_IDLE;
	for (i = 0; i < total; i++) {
		r.nr_slots[i].ps_job = jobs != NULL ? jobs[i] : 0;
		r.nr_slots[i].ps_state = r.nr_slots[i].ps_job != 0 ?
		    PROTO_NS_RUNNING : PROTO_NS_IDLE;
		if (r.nr_slots[i].ps_job != 0)
			r.nr_state = PROTO_NS_RUNNING;
	}
	if ((n = broker_node_register(&br, &r, &a, now)) != NULL)
		broker_health_on_register(&bh, &br, n);
	return n;
}

static struct broker_job *
job(uint64_t boot, uint16_t cpus, uint32_t mem, double now)
{
	struct proto_job_reg r;
	struct msg_addr a = addr(1);
	const char *why;

	memset(&r, 0, sizeof(r));
	a.ma_port = (uint16_t)(40000 + boot);
	r.jr_boot = boot;
	r.jr_pri = 1;
	r.jr_cpus = cpus;
	r.jr_mem_mb = mem;
	strlcpy(r.jr_command, "queens 12", sizeof(r.jr_command));
	return broker_job_register(&br, &r, "ann", &a, now, &why);
}

static void
on_assign(struct broker_node *n, uint16_t slot, struct broker_job *j,
    int room, void *arg)
{
	(void)slot;
	(void)j;
	(void)room;
	(void)arg;
	if (n->bn_id < 16)
		given[n->bn_id]++;
}

static int
set(uint8_t op, const char *name, const char *reason, const char *by,
    int admin, char *msg, size_t msgsz)
{
	struct proto_health_req q;

	memset(&q, 0, sizeof(q));
	q.hq_op = op;
	strlcpy(q.hq_node, name, sizeof(q.hq_node));
	if (reason != NULL)
		strlcpy(q.hq_reason, reason, sizeof(q.hq_reason));
	return broker_health_set(&bh, &br, &q, by, admin, 1700000000000ULL,
	    1, msg, msgsz);
}

static void
fresh(void)
{
	broker_health_fini(&bh);
	broker_fini(&br);
	broker_init(&br, 10);
	broker_health_init(&bh);
	memset(given, 0, sizeof(given));
}

static void
gone(const struct broker_node *n, const struct broker_job *j, double silent,
    void *arg)
{
	(void)arg;
	if (n != NULL)
		broker_health_down(&bh, n, silent, 1700000100000ULL, 40);
	(void)j;
}

/* A node down by itself (NODE_DOWN): held, listed, resumed. */
static void
test_fault(void)
{
	static struct proto_health rows;
	struct broker_node *a, *b;
	struct broker_job *j;
	char msg[PROTO_REASON_MAX];
	const char *why = "no space left in /s (0 KiB free) (3 starts in a "
	    "row)";

	fresh();
	a = node(2, 2, NULL, 0, 0);
	b = node(3, 2, NULL, 0, 0);
	is_int(broker_health_fault(&bh, &br, a, 99, 1, why, 1700000000000ULL,
	    1), 0, "a report with another boot is not taken");
	is_int(a->bn_drain, 0, "and the node is not held");
	is_int(broker_health_fault(&bh, &br, a, 2, 1, why, 1700000000000ULL,
	    1), 1, "ws2 down by itself");
	is_int(a->bn_drain, 2, "held as down");
	is_int(broker_health_state(a), PROTO_NS_DOWN, "listed as down");
	is_int(broker_health_fault(&bh, &br, a, 2, 1, why, 1700000000000ULL,
	    2), 0, "said again with its registration: nothing new");
	j = job(1, 1, 0, 1);
	broker_schedule(&br, 1, on_assign, NULL);
	is_int(given[a->bn_id], 0, "the down node is given nothing");
	is_int(given[b->bn_id], 2, "the job goes to the other node");
	memset(&rows, 0, sizeof(rows));
	broker_health_rows(&bh, &br, &rows);
	ok(rows.he_total == 1 && rows.he_n == 1 &&
	    rows.he_rows[0].hr_state == PROTO_NS_DOWN &&
	    rows.he_rows[0].hr_node == a->bn_id &&
	    strcmp(rows.he_rows[0].hr_reason, why) == 0 &&
	    rows.he_rows[0].hr_user[0] == '\0' &&
	    rows.he_rows[0].hr_since_ms == 1700000000000ULL,
	    "-R: down, its reason, no user, since when");
	/* It registers again (the same or a restarted node manager). */
	a = node(2, 2, NULL, 0, 3);
	is_int(a->bn_drain, 2, "still down after it registers");
	a->bn_boot = 77;	/* a restarted node manager */
	broker_health_on_register(&bh, &br, a);
	is_int(broker_health_state(a), PROTO_NS_DOWN,
	    "still down after its node manager restarts");
	is_int(set(PROTO_HO_RESUME, "ws2", NULL, "bob", 0, msg, sizeof(msg)),
	    -1, "a user who is not an administrator may not resume it");
	is_int(set(PROTO_HO_RESUME, "ws2", NULL, "root", 1, msg, sizeof(msg)),
	    0, "an administrator resumes it: %s", msg);
	is_int(a->bn_drain, 0, "it takes work again");
	is_int(broker_health_state(a), PROTO_NS_IDLE, "listed as idle");
	a->bn_boot = 2;
	broker_health_on_register(&bh, &br, a);
	is_int(broker_health_fault(&bh, &br, a, 2, 1, why, 1700000000000ULL,
	    4), 0, "its own report of the down resumed is not taken again");
	is_int(a->bn_drain, 0, "so it stays up");
	memset(given, 0, sizeof(given));
	(void)j;
	(void)job(2, 1, 0, 4);
	broker_schedule(&br, 5, on_assign, NULL);
	ok(given[a->bn_id] > 0, "and is given work");
	is_int(broker_health_fault(&bh, &br, a, 2, 2, "user bob unknown (3 "
	    "starts in a row)", 1700000001000ULL, 5), 1,
	    "a down of a new number holds it again");
	is_int(broker_health_state(a), PROTO_NS_DOWN, "down again");
	is_int(broker_health_fault(&bh, &br, a, 2, 2, "other", 1700000002000ULL,
	    6), 1, "the same down with a new reason: taken");
	memset(&rows, 0, sizeof(rows));
	broker_health_rows(&bh, &br, &rows);
	ok(rows.he_n == 1 && strcmp(rows.he_rows[0].hr_reason, "other") == 0 &&
	    rows.he_rows[0].hr_since_ms == 1700000001000ULL,
	    "one record: the new reason, since the down began");
	/* Drained and down: resume undoes both. */
	is_int(set(PROTO_HO_DRAIN, "ws2", "disk", "root", 1, msg, sizeof(msg)),
	    0, "a down node may be drained too");
	is_int(broker_health_state(a), PROTO_NS_DOWN, "down shows first");
	is_int(set(PROTO_HO_RESUME, "127.0.0.2", NULL, "root", 1, msg,
	    sizeof(msg)), 0, "resumed by address");
	is_int(a->bn_drain, 0, "neither drained nor down");
	is_int(set(PROTO_HO_RESUME, "ws2", NULL, "root", 1, msg, sizeof(msg)),
	    -1, "a node neither drained nor down is not resumed");
	ok(strstr(msg, "not drained or down") != NULL, "said: %s", msg);
}

/*
 * Kept across a restart of the broker: every record copied out and put
 * back into a fresh broker holds the same nodes the same way; records
 * that fail their checks are refused.
 */
static void
test_reload(void)
{
	static struct broker_hold saved[8], bad;
	static struct proto_health rows;
	struct broker_hold *x;
	struct broker_node *a, *b;
	char msg[PROTO_REASON_MAX];
	const char *why;
	int k = 0, i;

	fresh();
	a = node(2, 2, NULL, 0, 0);
	b = node(3, 2, NULL, 0, 0);
	(void)node(4, 2, NULL, 0, 0);
	is_int(broker_health_fault(&bh, &br, a, 2, 1, "user bob unknown "
	    "there (3 starts in a row)", 1700000000000ULL, 1), 1,
	    "ws2 down by itself");
	is_int(set(PROTO_HO_DRAIN, "ws3", "fan", "root", 1, msg, sizeof(msg)),
	    0, "ws3 drained");
	(void)node(2, 2, NULL, 0, 35);
	(void)node(3, 2, NULL, 0, 35);
	is_int(broker_expire(&br, 40, gone, NULL), 1, "ws4 forgotten: down");
	TAILQ_FOREACH(x, &bh.bh_holds, bh_entry)
		if (k < 8)
			saved[k++] = *x;
	is_int(k, 3, "three records to save");

	/* A new broker; ws2's node manager restarted too (another boot:
	 * it no longer says it is down). */
	fresh();
	for (i = 0; i < k; i++)
		is_int(broker_health_reload(&bh, &br, &saved[i], 1000,
		    1700000100000ULL, &why), 0, "record %d reloaded", i);
	is_int(broker_health_reload(&bh, &br, &saved[0], 1000,
	    1700000100000ULL, &why), -1, "a record held twice is refused");
	is_str(why, "held twice", "said");
	a = node(2, 2, NULL, 0, 1001);
	a->bn_boot = 77;
	broker_health_on_register(&bh, &br, a);
	is_int(broker_health_state(a), PROTO_NS_DOWN,
	    "ws2 is down after both restart");
	b = node(3, 2, NULL, 0, 1001);
	is_int(broker_health_state(b), PROTO_NS_DRAINED, "ws3 drained still");
	is_int(broker_health_ndown(&bh), 1, "ws4 still listed as down");
	memset(&rows, 0, sizeof(rows));
	broker_health_rows(&bh, &br, &rows);
	ok(rows.he_total == 3 && rows.he_rows[0].hr_state ==
	    PROTO_NS_DRAINED && strcmp(rows.he_rows[0].hr_user, "root") == 0 &&
	    rows.he_rows[2].hr_state == PROTO_NS_DOWN &&
	    rows.he_rows[2].hr_node == a->bn_id &&
	    strcmp(rows.he_rows[2].hr_reason, "user bob unknown there (3 "
	    "starts in a row)") == 0 &&
	    rows.he_rows[2].hr_since_ms == 1700000000000ULL,
	    "-R: the same rows, reasons and times");
	(void)job(1, 1, 0, 1001);
	broker_schedule(&br, 1001, on_assign, NULL);
	is_int(given[a->bn_id] + given[b->bn_id], 0,
	    "neither is given work");
	is_int(set(PROTO_HO_RESUME, "ws2", NULL, "root", 1, msg, sizeof(msg)),
	    0, "ws2 resumed");
	is_int(a->bn_drain, 0, "it takes work again");
	/* down_keep counts from when the silence was recorded. */
	bh.bh_down_keep = 60;
	broker_health_expire(&bh, 1019);
	is_int(broker_health_ndown(&bh), 1,
	    "a silence of 40 s at the reload is kept within down_keep");
	broker_health_expire(&bh, 1021);
	is_int(broker_health_ndown(&bh), 0, "and goes after it");

	/* Checks. */
	bad = saved[1];
	bad.bh_kind = 9;
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "an unknown kind is refused (%s)", why);
	bad = saved[1];
	bad.bh_addr.ma_family = 0;
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "a bad address is refused (%s)", why);
	bad = saved[1];
	bad.bh_reason[0] = '\0';
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "an empty reason is refused (%s)", why);
	bad = saved[1];
	bad.bh_reason[3] = '\n';
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "a control character is refused (%s)", why);
	bad = saved[1];
	memset(bad.bh_host, 'h', sizeof(bad.bh_host));
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "an unterminated host name is refused (%s)", why);
	bad = saved[1];
	bad.bh_user[0] = '\0';
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "a drain by no one is refused (%s)", why);
	bad = saved[2];
	strlcpy(bad.bh_user, "root", sizeof(bad.bh_user));
	is_int(broker_health_reload(&bh, &br, &bad, 1, 1, &why), -1,
	    "a fault by a user is refused (%s)", why);
}

int
main(void)
{
	static struct proto_health rows;
	struct broker_node *a, *b;
	struct broker_job *j, *k;
	char msg[PROTO_REASON_MAX];
	uint32_t runs1[2] = { 1, 1 }, runs11[2] = { 1, 1 };
	uint16_t i;

	broker_init(&br, 10);
	broker_health_init(&bh);

	/* Who may, and which node. */
	a = node(2, 2, NULL, 0, 0);
	b = node(3, 2, NULL, 0, 0);
	ok(a != NULL && b != NULL, "two nodes registered");
	is_int(set(PROTO_HO_DRAIN, "ws2", "disk", "bob", 0, msg, sizeof(msg)),
	    -1, "a user who is not an administrator may not drain");
	ok(strstr(msg, "administrator") != NULL, "and is told why: %s", msg);
	is_int(a->bn_drain, 0, "the node is not drained");
	is_int(set(PROTO_HO_DRAIN, "ws9", "disk", "root", 1, msg,
	    sizeof(msg)), -1, "an unknown node is refused");
	ok(strstr(msg, "no such node: ws9") != NULL, "named: %s", msg);
	is_int(set(PROTO_HO_RESUME, "ws2", NULL, "root", 1, msg, sizeof(msg)),
	    -1, "a node not drained cannot be resumed");
	ok(strstr(msg, "not drained") != NULL, "named: %s", msg);
	is_int(set(PROTO_HO_DRAIN, "ws2", "disk", "root", 1, msg,
	    sizeof(msg)), 0, "an administrator drains a node by host name");
	is_int(a->bn_drain, 1, "it is drained");
	is_int(b->bn_drain, 0, "the other is not");
	is_int(broker_health_state(a), PROTO_NS_DRAINED,
	    "idle and drained: drained");
	is_int(b->bn_id, 2, "ws3 is node 2");
	is_int(set(PROTO_HO_DRAIN, "2", "fan", "root", 1, msg, sizeof(msg)),
	    0, "a node is named by its number too");
	is_int(b->bn_drain, 1, "node 2 drained");
	is_int(set(PROTO_HO_RESUME, "127.0.0.3", NULL, "root", 1, msg,
	    sizeof(msg)), 0, "and resumed by its address");
	is_int(b->bn_drain, 0, "node 3 takes work again");

	/* Free processors: the job goes to the other node only. */
	j = job(1, 1, 0, 1);
	ok(j != NULL, "a job");
	broker_schedule(&br, 1, on_assign, NULL);
	is_int(given[a->bn_id], 0, "the drained node is given nothing");
	is_int(given[b->bn_id], 2, "the other node both its processors");
	ok(j->bj_pending == PROTO_PENDING_NONE, "the job runs");

	/* Drain while it runs: drain, its work stays counted. */
	fresh();
	a = node(2, 2, runs1, 0, 0);
	b = node(3, 2, NULL, 0, 0);
	j = job(1, 1, 0, 0);
	ok(j != NULL && j->bj_id == 1, "job 1 runs on ws2");
	is_int(set(PROTO_HO_DRAIN, "ws2", "memory errors", "root", 1, msg,
	    sizeof(msg)), 0, "ws2 drained while it runs job 1");
	ok(strstr(msg, "running work goes on") != NULL, "said: %s", msg);
	is_int(broker_health_state(a), PROTO_NS_DRAIN, "shown as drain");
	broker_schedule(&br, 1, on_assign, NULL);
	is_int(given[a->bn_id], 0, "nothing new for ws2");
	is_int(given[b->bn_id], 2, "ws3 gets the job's other workers");
	is_int(j->bj_count, 4, "ws2's workers still count for the job");
	/* Its work ends: drained. */
	a = node(2, 2, NULL, 0, 2);
	is_int(a->bn_drain, 1, "still drained after it registers");
	is_int(broker_health_state(a), PROTO_NS_DRAINED, "drained once idle");
	broker_schedule(&br, 2, on_assign, NULL);
	is_int(given[a->bn_id], 0, "and given nothing though idle");

	/* Sharing a processor of the largest job: not a drained one's. */
	fresh();
	a = node(2, 2, runs11, 0, 0);
	j = job(1, 1, 0, 0);
	(void)set(PROTO_HO_DRAIN, "ws2", "x", "root", 1, msg, sizeof(msg));
	k = job(2, 1, 0, 0);
	broker_schedule(&br, 1, on_assign, NULL);
	is_int(given[a->bn_id], 0, "a new job takes no processor of the "
	    "drained node's job");
	ok(k->bj_pending != PROTO_PENDING_NONE, "it waits");
	(void)set(PROTO_HO_RESUME, "ws2", NULL, "root", 1, msg, sizeof(msg));
	broker_schedule(&br, 2, on_assign, NULL);
	is_int(given[a->bn_id], 1, "resumed: it shares a processor");

	/* Jobs that need resources: neither a fitting node nor room. */
	fresh();
	a = node(2, 4, NULL, 4096, 0);
	(void)set(PROTO_HO_DRAIN, "ws2", "x", "root", 1, msg, sizeof(msg));
	j = job(1, 2, 1024, 0);
	broker_schedule(&br, 1, on_assign, NULL);
	is_int(given[a->bn_id], 0, "a job of 2 processors does not go to it");
	is_int(j->bj_pending, PROTO_PENDING_NOFIT,
	    "and fits nowhere else (NOFIT)");
	fresh();
	{
		uint32_t busy[2] = { 1, 1 };

		a = node(2, 2, busy, 0, 0);
		b = node(3, 2, busy, 0, 0);
	}
	j = job(1, 1, 0, 0);
	(void)set(PROTO_HO_DRAIN, "ws2", "x", "root", 1, msg, sizeof(msg));
	k = job(2, 2, 0, 0);
	broker_schedule(&br, 1, on_assign, NULL);
	is_int(given[a->bn_id], 0, "no room is made on the drained node");
	is_int(given[b->bn_id], 1, "but on the other");

	/* Down: forgotten, listed, until it registers again. */
	fresh();
	a = node(2, 2, NULL, 0, 0);
	b = node(3, 2, NULL, 0, 0);
	(void)set(PROTO_HO_DRAIN, "ws2", "bad disk", "root", 1, msg,
	    sizeof(msg));
	b = node(3, 2, NULL, 0, 35);	/* ws3 stays, ws2 goes silent */
	is_int(broker_expire(&br, 40, gone, NULL), 1, "ws2 is forgotten");
	is_int(broker_health_ndown(&bh), 1, "and listed as down");
	ok(broker_health_first_down(&bh) != NULL &&
	    strncmp(broker_health_first_down(&bh)->bh_reason,
	    "silent since 2023-11-14T22:", 27) == 0,
	    "reason: %s", broker_health_first_down(&bh)->bh_reason);
	memset(&rows, 0, sizeof(rows));
	broker_health_rows(&bh, &br, &rows);
	is_int(rows.he_total, 2, "-R: the drain and the down record");
	is_int(rows.he_rows[0].hr_state, PROTO_NS_DRAINED,
	    "the drain of a node gone: drained");
	is_str(rows.he_rows[0].hr_user, "root", "who drained it");
	is_str(rows.he_rows[0].hr_reason, "bad disk", "why");
	ok(rows.he_rows[0].hr_since_ms == 1700000000000ULL, "since when");
	is_int(rows.he_rows[1].hr_state, PROTO_NS_DOWN, "then down");
	is_str(rows.he_rows[1].hr_user, "", "set by no one");
	ok(rows.he_rows[1].hr_since_ms == 1700000100000ULL - 40 * 1000,
	    "since it fell silent");
	a = node(2, 2, NULL, 0, 50);
	is_int(a->bn_drain, 1, "registering again, ws2 is drained still");
	is_int(broker_health_ndown(&bh), 0, "and no longer down");
	broker_schedule(&br, 50, on_assign, NULL);
	(void)job(1, 1, 0, 50);
	broker_schedule(&br, 50, on_assign, NULL);
	is_int(given[a->bn_id], 0, "it takes no work");

	/* down_keep: a down record goes after it. */
	b = node(3, 2, NULL, 0, 100);
	a = node(2, 2, NULL, 0, 200);
	(void)broker_expire(&br, 150, gone, NULL);	/* job 1 too */
	is_int(broker_health_ndown(&bh), 1, "ws3 is forgotten: down");
	bh.bh_down_keep = 60;
	broker_health_expire(&bh, 90);
	is_int(broker_health_ndown(&bh), 1, "kept within down_keep");
	broker_health_expire(&bh, 101);
	is_int(broker_health_ndown(&bh), 0, "gone after down_keep");

	/* A down node may be drained (it stays out when it returns). */
	b = node(3, 2, NULL, 0, 300);
	a = node(2, 2, NULL, 0, 300);
	(void)set(PROTO_HO_RESUME, "ws2", NULL, "root", 1, msg, sizeof(msg));
	is_int(a->bn_drain, 0, "ws2 resumed");
	a = node(2, 2, NULL, 0, 340);
	is_int(broker_expire(&br, 345, gone, NULL), 1, "ws3 forgotten");
	is_int(set(PROTO_HO_DRAIN, "ws3", "rack moved", "ann", 1, msg,
	    sizeof(msg)), 0, "a down node may be drained");
	b = node(3, 2, NULL, 0, 350);
	is_int(b->bn_drain, 1, "it returns drained");
	memset(&rows, 0, sizeof(rows));
	broker_health_rows(&bh, &br, &rows);
	is_int(rows.he_total, 1, "one held node");
	is_str(rows.he_rows[0].hr_user, "ann", "drained by ann");

	/* The table has a bound; drains are never pushed out by downs. */
	fresh();
	for (i = 0; i < BROKER_HOLDS_MAX + 5; i++) {
		struct broker_node fake;

		memset(&fake, 0, sizeof(fake));
		fake.bn_id = (uint32_t)i + 100;
		fake.bn_addr = addr(2);
		fake.bn_addr.ma_port = (uint16_t)(1000 + i);
		broker_health_down(&bh, &fake, 1, 1700000000000ULL, 1);
	}
	is_int(broker_health_ndown(&bh), BROKER_HOLDS_MAX,
	    "at most BROKER_HOLDS_MAX down records");
	is_int(broker_health_first_down(&bh)->bh_node, 105,
	    "the oldest made room");

	test_fault();
	test_reload();
	broker_health_fini(&bh);
	broker_fini(&br);
	return tap_done();
}
