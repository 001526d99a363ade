/*
 * Unit tests of broker_persist: a node and a job saved and reloaded into
 * a new registry as they were (slots, ages, ids), the next ids above the
 * reloaded ones, records that fail their checks refused, a reloaded node
 * or job manager that registers again keeping its id (and a node its
 * SEEN age starting over), a reloaded record expired 3 intervals after
 * the restart and not before, the slot bytes' round trip and
 * refusals, and when the registry is written.
 */
#include <stdio.h>
#include <string.h>

#include "broker_persist.h"
#include "tap.h"

#define INTERVAL	15.0

static struct msg_addr
addr(int host, uint16_t port)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = (uint8_t)host;
	a.ma_port = port;
	return a;
}

static struct proto_node_reg nreg;

static struct broker_node *
node(struct broker *br, int host, uint32_t id, uint32_t job, double now)
{
	struct msg_addr a = addr(host, 7411);

	memset(&nreg, 0, sizeof(nreg));
	nreg.nr_node = id;
	nreg.nr_boot = (uint64_t)host;
	snprintf(nreg.nr_host, sizeof(nreg.nr_host), "ws%d", host);
	nreg.nr_total = nreg.nr_lent = nreg.nr_nslots = 2;
	nreg.nr_mem_mb = 1000;
	nreg.nr_state = job != 0 ? PROTO_NS_RUNNING : PROTO_NS_IDLE;
	nreg.nr_job = job;
	nreg.nr_slots[0].ps_state = nreg.nr_state;
	nreg.nr_slots[0].ps_job = job;
	nreg.nr_slots[1].ps_state = PROTO_NS_IDLE;
	return broker_node_register(br, &nreg, &a, now);
}

static struct broker_job *
job(struct broker *br, uint32_t id, uint64_t boot, const char *user,
    double now, const char **why)
{
	struct proto_job_reg r;
	struct msg_addr a = addr(1, 40000);

	memset(&r, 0, sizeof(r));
	r.jr_job = id;
	r.jr_boot = boot;
	r.jr_pri = 3;
	r.jr_max = 4;
	r.jr_cpus = 1;
	r.jr_start_ms = 1000;
	strlcpy(r.jr_command, "queens 12", sizeof(r.jr_command));
	return broker_job_register(br, &r, user, &a, now, why);
}

int
main(void)
{
	static struct broker_saved_node sn, bad;
	static struct broker_saved_job sj, badj;
	static uint8_t buf[PROTO_SLOTS_MAX * BROKER_SLOT_BYTES + 8];
	struct broker old, br;
	struct broker_node *n;
	struct broker_job *j;
	const char *why;
	uint64_t ms = 5000000;
	size_t len;

	/* The broker before the restart: job 7 on node 4 (ws2). */
	broker_init(&old, INTERVAL);
	old.br_next_job = 7;
	old.br_next_node = 4;
	j = job(&old, 0, 99, "ann", 100, &why);
	ok(j != NULL && j->bj_id == 7, "job 7 registered");
	n = node(&old, 2, 0, 7, 100);
	ok(n != NULL && n->bn_id == 4, "node 4 registered, running job 7");
	broker_save_node(n, 110, ms, &sn);
	broker_save_job(j, &sj);
	is_int((long)(ms - sn.sn_seen_ms), 10000,
	    "saved: last heard 10 s before the save");
	is_int(sn.sn_nslots, 2, "saved: its 2 processors");

	/* The slots as bytes, and back. */
	len = broker_slots_enc(&sn, buf, sizeof(buf));
	is_int((long)len, 2 * BROKER_SLOT_BYTES, "slots: 5 bytes each");
	memset(&bad, 0, sizeof(bad));
	ok(broker_slots_dec(&bad, buf, len) == 0 && bad.sn_nslots == 2 &&
	    bad.sn_slots[0].ps_job == 7 &&
	    bad.sn_slots[0].ps_state == PROTO_NS_RUNNING &&
	    bad.sn_slots[1].ps_state == PROTO_NS_IDLE, "slots: round trip");
	ok(broker_slots_dec(&bad, buf, len - 1) == -1,
	    "slots: a partial slot is refused");
	ok(broker_slots_dec(&bad, buf, (PROTO_SLOTS_MAX + 1) *
	    BROKER_SLOT_BYTES) == -1 || sizeof(buf) < (PROTO_SLOTS_MAX + 1) *
	    BROKER_SLOT_BYTES, "slots: more than PROTO_SLOTS_MAX refused");
	ok(broker_slots_enc(&sn, buf, 9) == 0, "slots: no room, nothing");

	/* The new broker, 20 s later by the wall clock; mono clock anew. */
	broker_init(&br, INTERVAL);
	ok(broker_reload_node(&br, &sn, 1, ms + 20000, &why) == 0,
	    "node 4 reloaded");
	ok(broker_reload_job(&br, &sj, 1, &why) == 0, "job 7 reloaded");
	n = broker_node_find(&br, 4);
	j = broker_job_find(&br, 7);
	ok(n != NULL && n->bn_state == PROTO_NS_RUNNING && n->bn_nslots == 2 &&
	    n->bn_slots[0].bs_job == 7 && n->bn_mem_mb == 1000 &&
	    strcmp(n->bn_host, "ws2") == 0, "node 4 as it last said");
	ok(broker_node_runs(n, 7), "node 4 runs job 7 (pushes and CilkPs)");
	ok(j != NULL && strcmp(j->bj_user, "ann") == 0 && j->bj_pri == 3 &&
	    j->bj_max == 4 && j->bj_boot == 99 && j->bj_start_ms == 1000 &&
	    strcmp(j->bj_command, "queens 12") == 0 &&
	    msg_addr_eq(&j->bj_addr, &sj.sj_addr), "job 7 as it was");
	ok(broker_node_seen_age(n, 1) > 29.9 &&
	    broker_node_seen_age(n, 1) < 30.1,
	    "its SEEN age: 10 s before the save and 20 s since");
	ok(broker_node_seen_age(n, 6) > 34.9, "and keeps growing");
	ok(br.br_next_job == 8 && br.br_next_node == 5,
	    "next ids above the reloaded ones");
	broker_recount(&br, 1);
	is_int(j->bj_count, 1, "job 7 counts its processor on node 4");

	/* Refusals. */
	ok(broker_reload_node(&br, &sn, 1, ms, &why) == -1,
	    "the same node twice: refused (%s)", why);
	bad = sn;
	bad.sn_id = 9;
	ok(broker_reload_node(&br, &bad, 1, ms, &why) == -1,
	    "another id at a node's address: refused (%s)", why);
	bad.sn_addr = addr(3, 7411);
	bad.sn_state = PROTO_NS_MAX;
	ok(broker_reload_node(&br, &bad, 1, ms, &why) == -1,
	    "a bad state: refused (%s)", why);
	bad.sn_state = PROTO_NS_IDLE;
	bad.sn_slots[1].ps_state = 0;
	ok(broker_reload_node(&br, &bad, 1, ms, &why) == -1,
	    "a bad processor state: refused (%s)", why);
	bad.sn_slots[1].ps_state = PROTO_NS_IDLE;
	bad.sn_addr.ma_family = 5;
	ok(broker_reload_node(&br, &bad, 1, ms, &why) == -1,
	    "a bad address: refused (%s)", why);
	bad.sn_addr.ma_family = 4;
	bad.sn_id = 0;
	ok(broker_reload_node(&br, &bad, 1, ms, &why) == -1,
	    "node id 0: refused (%s)", why);
	badj = sj;
	ok(broker_reload_job(&br, &badj, 1, &why) == -1,
	    "the same job twice: refused (%s)", why);
	badj.sj_id = 8;
	badj.sj_pri = 0;
	ok(broker_reload_job(&br, &badj, 1, &why) == -1,
	    "priority 0: refused (%s)", why);
	badj.sj_pri = 1;
	strlcpy(badj.sj_user, "a/b", sizeof(badj.sj_user));
	ok(broker_reload_job(&br, &badj, 1, &why) == -1,
	    "a bad user name: refused (%s)", why);
	strlcpy(badj.sj_user, "bob", sizeof(badj.sj_user));
	badj.sj_cpus = 0;
	ok(broker_reload_job(&br, &badj, 1, &why) == -1,
	    "0 processors: refused (%s)", why);
	badj.sj_cpus = 1;
	badj.sj_id = 0;
	ok(broker_reload_job(&br, &badj, 1, &why) == -1,
	    "job id 0: refused (%s)", why);
	ok(br.br_nnodes == 1 && br.br_njobs == 1, "nothing refused was kept");

	/* Reconciling: the job manager and the node come back. */
	ok(job(&br, 7, 99, "bob", 5, &why) == NULL,
	    "job 7 again by another user: refused (%s)", why);
	ok(job(&br, 7, 99, "ann", 5, &why) == j && br.br_njobs == 1,
	    "job 7 again by its job manager: the reloaded job, id kept");
	ok(broker_job_unregister(&br, 7, "ann", &why) == 0,
	    "a reloaded job unregisters (no \"no such job\")");
	ok(broker_reload_job(&br, &sj, 6, &why) == 0, "job 7 reloaded again");
	j = broker_job_find(&br, 7);
	ok(node(&br, 2, 4, 7, 6) == n && n->bn_id == 4 && br.br_nnodes == 1,
	    "node 4 registers again: the reloaded node, id kept");
	ok(broker_node_seen_age(n, 7) < 1.1, "and its SEEN age starts over");

	/* Expiry counts from the restart, not from the last word. */
	ok(broker_expire(&br, 6 + 3 * INTERVAL - 1, NULL, NULL) == 0,
	    "nothing expired within 3 intervals of the reload");
	ok(broker_expire(&br, 6 + 3 * INTERVAL + 1, NULL, NULL) == 2,
	    "a silent reloaded node and job: expired after 3 intervals");

	/* When to write: changes at most once a second, ages once an
	 * interval, slow writes less often. */
	ok(broker_persist_when(0, 5, 0.01, INTERVAL) == -1,
	    "unchanged, written 5 s ago: not written");
	ok(broker_persist_when(0, INTERVAL, 0.01, INTERVAL) == 0,
	    "unchanged for an interval: written (ages)");
	ok(broker_persist_when(1, 2, 0.01, INTERVAL) == 0,
	    "changed, written 2 s ago: now");
	ok(broker_persist_when(1, 0.25, 0.01, INTERVAL) == 0.75,
	    "changed, written 0.25 s ago: in 0.75 s (a flood is one write "
	    "a second)");
	ok(broker_persist_when(1, 2, 0.5, INTERVAL) == 8,
	    "a write that took 0.5 s: the next 10 s after it");
	ok(broker_persist_when(0, INTERVAL, 0.5, INTERVAL) == 0,
	    "and not later than an interval if that is longer");

	broker_fini(&br);
	broker_fini(&old);
	return tap_done();
}
