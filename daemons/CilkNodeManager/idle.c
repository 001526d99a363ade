/*
 * CilkNodeManager: the owner's coming and going.  The node looks
 * (sense.c) every few seconds, within a second while it works, and on
 * input after a quiet moment: the owner's return takes the node back
 * (its workers frozen or stopped), the owner's leaving lends it, and
 * the owner's load, between, keeps as many processors as it needs
 * (lend.c).
 */
#include "log.h"
#include "mono.h"
#include "node.h"
#include "sensors.h"

void
node_idle_on_input(struct node *n, const struct nmpriv_msg *m)
{
	double last = now_mono() - (double)m->nm_idle_ms / 1000;
	int first = !n->n_input_told, newer = last > n->n_input_last + 0.001;

	n->n_input_told = 1;
	n->n_input_devices = m->nm_devices;
	if (m->nm_devices > 0)
		n->n_input_last = last;
	/* Only a lent node can change its mind on input: act now. */
	if (first || (m->nm_devices > 0 && newer && n->n_owner_away)) {
		log_debug("%s: input %.1f s ago on %u devices", __func__,
		    (double)m->nm_idle_ms / 1000, m->nm_devices);
		node_idle_update(n);
	}
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
 * Measures now and acts: the owner's coming or going lends the node or
 * takes it back; the owner's load, between, as many processors as it
 * keeps busy.
 */
void
node_idle_update(struct node *n)
{
	int away;

	if (n->n_leaving)	/* leave.c: the node lends nothing now */
		return;
	away = node_sense(n);
	if (away != n->n_owner_away) {
		if (!away) {
			log_info("the owner is back");
			owner_returns(n);
			n->n_owner_away = 0;
		} else {
			n->n_owner_away = 1;
			owner_leaves(n);
		}
	}
	node_slots_lend(n);
}

static void
on_sense(struct evloop *loop, void *arg)
{
	struct node *n = arg;

	n->n_sense_timer = NULL;	/* fired: node_sense_soon keeps off */
	node_chan_scan(n);	/* a keyboard plugged in since */
	node_idle_update(n);
	n->n_sense_due = now_mono() + (node_slots_running(n) > 0 ?
	    NODE_POLL_WORKING :
	    n->n_interval < NODE_POLL_IDLE ? n->n_interval : NODE_POLL_IDLE);
	n->n_sense_timer = evloop_timer_add(loop, n->n_sense_due - now_mono(),
	    on_sense, n);
}

/*
 * Where logind knows no session, idle time counts from the last one:
 * the newest login or logout wtmp records, else our own start; never
 * from boot, which would lend a node at once after its owner logs out
 * (logind forgets a session when it ends).
 */
static void
logind_since(struct node *n)
{
	double now = now_mono(), when, ago;

	n->n_logind.sl_session = now;
	if (sensors_read_last_session("/var/log/wtmp", &when) == -1)
		return;
	ago = (double)now_real_ns() / 1e9 - when;
	if (ago > 0)
		n->n_logind.sl_session = now - ago;
}

void
node_idle_start(struct node *n)
{
	loadmodel_init(&n->n_loadmodel);
	logind_since(n);
	n->n_owner_away = node_sense(n);
	n->n_state = PROTO_NS_BUSY;
	node_slots_lend(n);
	n->n_sense_due = now_mono() + NODE_POLL_WORKING;
	n->n_sense_timer = evloop_timer_add(n->n_dc.dc_loop, NODE_POLL_WORKING,
	    on_sense, n);
}
