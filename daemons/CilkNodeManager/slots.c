/*
 * CilkNodeManager: the node's processors.  It lends those its owner's
 * own load leaves free (nodecore's rule), none while the predicates
 * fail, and each lent one runs a worker of its own.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "node.h"

/* The processors this process may use: its CPU affinity, its quota. */
static uint32_t
cpus_auto(void)
{
	uint32_t n = 1, q = contain_cpu_quota();
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		n = (uint32_t)CPU_COUNT(&set);
	return q >= 1 && q < n ? q : n;
}

void
node_slots_init(struct node *n)
{
	const char *v = conf_get(n->n_dc.dc_conf, "slots");
	struct slot *s;
	uint32_t total;
	uint16_t i;

	total = strcmp(v, "auto") == 0 ? cpus_auto() :
	    (uint32_t)strtoul(v, NULL, 10);
	if (total < 1)
		total = 1;
	if (total > NC_SLOTS_MAX)
		total = NC_SLOTS_MAX;
	n->n_total = (uint16_t)total;
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		s->s_node = n;
		s->s_index = i;
		s->s_state = PROTO_NS_BUSY;
		if (i == 0)
			strlcpy(s->s_name, n->n_name, sizeof(s->s_name));
		else if (snprintf(s->s_name, sizeof(s->s_name), "%.*s/%u",
		    (int)sizeof(s->s_name) - 5, n->n_name, i) < 0)
			fatalx("processor names");
	}
	log_info("%u processor%s (slots = %s)", total, total == 1 ? "" : "s",
	    v);
}

struct slot *
node_slot_at(struct node *n, uint32_t index)
{
	return index < n->n_total ? &n->n_slots[index] : NULL;
}

struct slot *
node_slot_named(struct node *n, const char *name)
{
	uint16_t i;

	for (i = 0; i < n->n_total; i++)
		if (strcmp(n->n_slots[i].s_name, name) == 0)
			return &n->n_slots[i];
	return NULL;
}

int
node_slots_running(const struct node *n)
{
	int k = 0;
	uint16_t i;

	for (i = 0; i < n->n_total; i++)
		if (n->n_slots[i].s_current != NULL)
			k++;
	return k;
}

/* What taking a processor back costs: none for an idle one. */
static int
cost(const struct slot *s)
{
	if (s->s_held != NULL)
		return 3;	/* its worker stops */
	if (s->s_current == NULL)
		return s->s_want_job != 0;
	return s->s_current->w_nw.nw_state == NW_STARTING ? 2 : 3;
}

/*
 * Lends what the owner does not keep: with the predicates holding, all
 * but those the owner's load keeps (DESIGN.md section 6, measured by
 * node_sense; every processor with slots_by_load = no); else none.  The owner takes back the cheapest first: idle processors, then
 * those fetching a job, then starting workers, then running ones.
 */
void
node_slots_lend(struct node *n)
{
	struct slot *s, *pick;
	uint32_t want, lent = 0;
	uint16_t i;
	int by_load = strcmp(conf_get(n->n_dc.dc_conf, "slots_by_load"),
	    "no") != 0;

	if (!n->n_owner_away)
		want = 0;
	else if (by_load)
		want = nc_slots_lent(n->n_total, n->n_lent, n->n_keep_become,
		    n->n_keep_stay);
	else
		want = n->n_total;
	for (i = 0; i < n->n_total; i++)
		lent += n->n_slots[i].s_lent;
	if (want != n->n_lent && n->n_owner_away)
		log_info("lending %u of %u processors (owner's load %.2f)",
		    want, n->n_total, n->n_meas.pm_load[0]);
	while (lent > want) {
		pick = NULL;
		for (i = n->n_total; i-- > 0;) {
			s = &n->n_slots[i];
			if (s->s_lent && (pick == NULL || cost(s) < cost(pick)))
				pick = s;
		}
		pick->s_lent = 0;
		node_fetch_withdraw(n, pick, "the owner's load needs its "
		    "processor");
		pick->s_want_job = 0;
		lent--;
		/* (The owner's return froze or stopped workers already.) */
		if (pick->s_current != NULL && n->n_owner_away)
			node_stop_slot(n, pick,
			    "the owner's load needs its processor");
		if (pick->s_held != NULL && n->n_owner_away)
			node_held_taken(n, pick,
			    "the owner's load needs a processor it holds");
	}
	/* Lent again: processors without a worker first. */
	for (i = 0; lent < want && i < n->n_total; i++)
		if (!n->n_slots[i].s_lent && n->n_slots[i].s_current == NULL) {
			n->n_slots[i].s_lent = 1;
			lent++;
		}
	for (i = 0; lent < want && i < n->n_total; i++)
		if (!n->n_slots[i].s_lent) {
			n->n_slots[i].s_lent = 1;
			lent++;
		}
	n->n_lent = (uint16_t)lent;
	node_update_state(n);
}
