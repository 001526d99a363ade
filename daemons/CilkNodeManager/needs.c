/*
 * CilkNodeManager: a batch task's --cpus and --mem (DESIGN.md section
 * 11).  A worker that takes N processors runs on one of them and holds
 * N - 1 others, which run nothing else and say they run its job; the
 * node lends memory as free memory less what its tasks were promised.
 * The parent holds the worker itself to both (cgroup cpu.max and
 * memory.max, parent.c).  What a job takes is in the broker's push
 * (node_push_job); a hold that stops other workers is worker.c's
 * (node_hold).
 */
#include <stdio.h>

#include "log.h"
#include "node.h"

/* Lent, running nothing, waiting for nothing, held for no one. */
static int
slot_free(const struct slot *s)
{
	return s->s_lent && s->s_current == NULL && s->s_want_job == 0 &&
	    s->s_held == NULL;
}

static uint16_t
held_by(const struct node *n, const struct slot *a)
{
	uint16_t i, k = 0;

	for (i = 0; i < n->n_total; i++)
		k += n->n_slots[i].s_held == a;
	return k;
}

/*
 * A processor whose worker may be stopped to make room for s's worker,
 * when the broker says so: lent, held for no one, running a worker of
 * one processor of another job.
 */
int
node_slot_evictable(const struct slot *s, const struct slot *for_slot)
{
	const struct worker *w = s->s_current;

	return s != for_slot && s->s_lent && s->s_held == NULL && w != NULL &&
	    (nw_up(w->w_nw.nw_state) || w->w_nw.nw_state == NW_STARTING) &&
	    w->w_cpus <= 1 && w->w_job != for_slot->s_want_job;
}

static uint16_t
free_besides(const struct node *n, const struct slot *s, int room)
{
	const struct slot *o;
	uint16_t i, k = 0;

	for (i = 0; i < n->n_total; i++) {
		o = &n->n_slots[i];
		k += o != s && (slot_free(o) || (room &&
		    node_slot_evictable(o, s)));
	}
	return k;
}

uint32_t
node_mem_lendable(const struct node *n, const struct slot *except)
{
	const struct worker *w;
	double mb = n->n_meas.pm_mem;
	uint16_t i;

	if (mb < 0)
		return 0;	/* unknown: promise nothing */
	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (nw_holds(w->w_nw.nw_state))
			mb -= w->w_mem_mb;
	for (i = 0; i < n->n_total; i++)
		if (&n->n_slots[i] != except &&
		    n->n_slots[i].s_current == NULL &&
		    n->n_slots[i].s_want_job != 0)
			mb -= n->n_slots[i].s_want_mem_mb;
	if (mb < 0)
		return 0;
	return mb > PROTO_MEM_MB_MAX ? PROTO_MEM_MB_MAX : (uint32_t)mb;
}

int
node_fits(const struct node *n, const struct slot *s, uint16_t cpus,
    uint32_t mem_mb, int room)
{
	if (cpus < 1)
		cpus = 1;
	return held_by(n, s) + free_besides(n, s, room) + 1 >= cpus &&
	    (mem_mb == 0 || node_mem_lendable(n, s) >= mem_mb);
}

/*
 * Holds for s's worker the cpus - 1 other processors it takes (and
 * lets go of any more), from the free ones, if the node has them and
 * the memory, free or, with room, in workers node_hold (worker.c) may
 * stop: how many it lacks still, for node_hold to take from those; -1
 * with why, holding what it held, if the node does not have them.
 */
int
node_hold_free(struct node *n, struct slot *s, uint16_t cpus,
    uint32_t mem_mb, int room, char *why, size_t whylen)
{
	uint16_t want = cpus > 1 ? cpus - 1 : 0, have = held_by(n, s), i;

	if (!node_fits(n, s, cpus, mem_mb, room)) {
		snprintf(why, whylen, "it takes %u processor%s and %u MiB; "
		    "%u are free here and %u MiB lendable", cpus,
		    cpus == 1 ? "" : "s", mem_mb,
		    held_by(n, s) + free_besides(n, s, room) + 1,
		    node_mem_lendable(n, s));
		return -1;
	}
	for (i = n->n_total; i-- > 0 && have > want;)
		if (n->n_slots[i].s_held == s) {
			n->n_slots[i].s_held = NULL;
			have--;
		}
	for (i = 0; i < n->n_total && have < want; i++)
		if (&n->n_slots[i] != s && slot_free(&n->n_slots[i])) {
			n->n_slots[i].s_held = s;
			have++;
		}
	return want - have;
}

/* What the processor a holds for: its worker's, else the one it fetches. */
static uint16_t
claim(const struct slot *a)
{
	uint16_t c = 0;

	if (a->s_current != NULL && nw_holds(a->s_current->w_nw.nw_state))
		c = a->s_current->w_cpus;
	if (a->s_want_job != 0 && a->s_want_cpus > c)
		c = a->s_want_cpus;
	return c > 1 ? c - 1 : 0;
}

/* Holds nobody claims any more go free: their worker is gone. */
void
node_holds_settle(struct node *n)
{
	uint16_t i, k, want;
	struct slot *a;

	for (i = 0; i < n->n_total; i++) {
		a = &n->n_slots[i];
		if (a->s_held != NULL)
			continue;
		want = claim(a);
		for (k = n->n_total; k-- > 0;)
			if (n->n_slots[k].s_held == a) {
				if (want > 0)
					want--;
				else
					n->n_slots[k].s_held = NULL;
			}
	}
}

/* What the broker's latest push says job takes; NULL if it is not there. */
const struct proto_push_job *
node_push_job(const struct node *n, uint32_t job)
{
	uint32_t i;

	for (i = 0; n->n_have_push && i < n->n_push.pu_njobs; i++)
		if (n->n_push.pu_jobs[i].pj_job == job)
			return &n->n_push.pu_jobs[i];
	return NULL;
}
