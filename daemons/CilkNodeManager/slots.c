/*
 * CilkNodeManager: the node's processors, named and counted.  Each lent
 * one (lend.c) runs a worker of its own.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "node.h"

/*
 * The processors this process may use: its CPU affinity, its quota
 * (read before the split: the engine's view has no cgroup to read).
 */
static uint32_t
cpus_auto(const struct node *nd)
{
	uint32_t n = 1, q = nd->n_cpu_quota;
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

	total = strcmp(v, "auto") == 0 ? cpus_auto(n) :
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
