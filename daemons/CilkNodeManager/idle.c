/*
 * CilkNodeManager: the owner's coming and going.  The node looks (the
 * parent measures, sense.c judges) every few seconds, within a second
 * while it works, and on input after a quiet moment: the owner's return
 * takes the node back (its workers frozen or stopped), the owner's
 * leaving lends it, and the owner's load, between, keeps as many
 * processors as it needs (lend.c).
 */
#include "log.h"
#include "mono.h"
#include "node.h"

/* Input came after a quiet moment: only a lent node acts on it, now. */
void
node_idle_on_input(struct node *n, const struct nmpriv_msg *m)
{
	if (!n->n_owner_away || m->nm_devices == 0)
		return;
	log_debug("%s: input %.1f s ago on %u devices", __func__,
	    (double)m->nm_idle_ms / 1000, m->nm_devices);
	node_idle_update(n);
}

/*
 * The owner is back: every processor's worker is frozen or stops, a
 * stop under way is hurried (nodeworker.h's nw_owner_back).
 */
static void
owner_returns(struct node *n)
{
	uint16_t i;

	for (i = 0; i < n->n_total; i++) {
		node_fetch_withdraw(n, &n->n_slots[i], "the owner is back");
		n->n_slots[i].s_want_job = 0;
	}
	node_workers_owner(n, 1);
}

/* The owner is away again: frozen workers go on, on lent processors. */
static void
owner_leaves(struct node *n)
{
	uint16_t i;
	int frozen = 0;

	for (i = 0; i < n->n_total; i++)
		frozen += n->n_slots[i].s_current != NULL &&
		    n->n_slots[i].s_current->w_nw.nw_state == NW_SUSPENDED;
	node_workers_owner(n, 0);
	if (frozen)
		log_info("the owner is away again within the suspension");
	else
		log_info("the owner is away: lending this node");
}

/*
 * Asks the parent to measure now (SENSE); the answer is acted on when
 * it comes (node_idle_on_meas).  One question at a time: one asked
 * meanwhile is asked again after the answer, which may be older.
 */
void
node_idle_update(struct node *n)
{
	if (n->n_sense_asked != 0) {
		n->n_sense_again = 1;
		return;
	}
	n->n_sense_asked = node_chan_sense(n);
}

/*
 * The parent's measurement (its answer, or its first, unasked, at its
 * start): the owner's coming or going lends the node or takes it back;
 * the owner's load, between, as many processors as it keeps busy.
 */
void
node_idle_on_meas(struct node *n, const struct nmpriv_msg *m)
{
	int away;

	if (m->nm_req != 0 && m->nm_req == n->n_sense_asked)
		n->n_sense_asked = 0;
	away = node_sense(n, m);
	if (!n->n_leaving && away != n->n_owner_away) {	/* leave.c */
		if (!away) {
			log_info("the owner is back");
			owner_returns(n);
			n->n_owner_away = 0;
		} else {
			n->n_owner_away = 1;
			owner_leaves(n);
		}
	}
	if (!n->n_leaving)
		node_slots_lend(n);
	if (n->n_sense_asked == 0 && n->n_sense_again) {
		n->n_sense_again = 0;
		node_idle_update(n);
	}
}

static void
on_sense(struct evloop *loop, void *arg)
{
	struct node *n = arg;

	n->n_sense_timer = NULL;	/* fired: node_sense_soon keeps off */
	node_idle_update(n);
	n->n_sense_due = now_mono() + (node_slots_running(n) > 0 ?
	    NODE_POLL_WORKING :
	    n->n_interval < NODE_POLL_IDLE ? n->n_interval : NODE_POLL_IDLE);
	n->n_sense_timer = evloop_timer_add(loop, n->n_sense_due - now_mono(),
	    on_sense, n);
}

void
node_idle_start(struct node *n)
{
	loadmodel_init(&n->n_loadmodel);
	n->n_owner_away = 0;	/* until the parent's first measurement */
	n->n_state = PROTO_NS_BUSY;
	node_slots_lend(n);
	n->n_sense_due = now_mono() + NODE_POLL_WORKING;
	n->n_sense_timer = evloop_timer_add(n->n_dc.dc_loop, NODE_POLL_WORKING,
	    on_sense, n);
}
