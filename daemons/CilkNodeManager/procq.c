/*
 * procq — a clearinghouse asks whether its silent worker's process is
 * still on this workstation before it gives the worker up for lost
 * (proto_proc.h).  The kernel knows, and the parent looks (PIDQ, only
 * at the asking user's own processes); the answer goes back when the
 * parent's comes.
 */
#include <string.h>

#include "log.h"
#include "node.h"
#include "proto_proc.h"

/* Questions the parent has not answered yet; more are not taken. */
#define PROCQ_WAITING_MAX	16

struct procq_wait {
	uint32_t	 pw_req;	/* our PIDQ; 0: a free slot */
	uint32_t	 pw_pid;
	struct msg_ep	*pw_ep;
	struct msg_kept	 pw_in;
};

static struct procq_wait waiting[PROCQ_WAITING_MAX];

static void
answer(struct msg_ep *ep, const struct msg_in *in, uint32_t pid,
    uint8_t state)
{
	struct proto_proc a;
	uint8_t buf[16];
	size_t len;

	memset(&a, 0, sizeof(a));
	a.pp_pid = pid;
	a.pp_state = state;
	if ((len = proto_proc_enc(&a, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_PROC, buf, len);
}

void
node_on_proc_ask(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct procq_wait *w = NULL;
	uint32_t pid;
	size_t i;

	/* A user's question: a daemon (@cluster) has none to ask. */
	if (strcmp(in->mi_name, MSG_CLUSTER_NAME) == 0 ||
	    proto_proc_ask_dec(&pid, in->mi_data, in->mi_len) == -1)
		return;
	if (!node_chan_pidq_ok(pid, in->mi_name)) {
		answer(ep, in, pid, PROTO_PROC_NONE);
		return;
	}
	for (i = 0; i < PROCQ_WAITING_MAX && w == NULL; i++)
		if (waiting[i].pw_req == 0)
			w = &waiting[i];
	if (w == NULL) {
		log_debug("%s: %d questions wait already; dropped", __func__,
		    PROCQ_WAITING_MAX);
		return;		/* it asks again */
	}
	w->pw_req = node_chan_pidq(n, pid, 0, in->mi_name);
	w->pw_pid = pid;
	w->pw_ep = ep;
	msg_keep(&w->pw_in, in);
}

int
node_procq_on_pida(struct node *n, const struct nmpriv_msg *m)
{
	size_t i;

	(void)n;
	for (i = 0; i < PROCQ_WAITING_MAX; i++)
		if (waiting[i].pw_req == m->nm_req) {
			answer(waiting[i].pw_ep, &waiting[i].pw_in.mk_in,
			    waiting[i].pw_pid, m->nm_state);
			waiting[i].pw_req = 0;
			return 1;
		}
	return 0;
}
