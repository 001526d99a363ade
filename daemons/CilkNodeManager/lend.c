/*
 * CilkNodeManager: how many of the node's processors it lends (slots.c
 * names them): those its owner's own load leaves free (nodecore's
 * rule), none while the predicates fail; the owner takes back the
 * cheapest first.
 */
#include <string.h>

#include "log.h"
#include "node.h"

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
 * node_sense; every processor with slots_by_load = no); else none.
 * The owner takes back the cheapest first: idle processors, then
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
