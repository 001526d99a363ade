/*
 * procq — a clearinghouse asks whether its silent worker's process is
 * still on this workstation before it gives the worker up for lost
 * (proto_proc.h).  The kernel knows; we only look, and only at the
 * asking user's own processes.
 */
#include <pwd.h>
#include <string.h>

#include "node.h"
#include "proto_proc.h"

void
node_on_proc_ask(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct proto_proc a;
	struct passwd *pw;
	uint8_t buf[16];
	size_t len;
	uint32_t pid;

	(void)arg;
	/* A user's question: a daemon (@cluster) has none to ask. */
	if (strcmp(in->mi_name, MSG_CLUSTER_NAME) == 0 ||
	    proto_proc_ask_dec(&pid, in->mi_data, in->mi_len) == -1)
		return;
	memset(&a, 0, sizeof(a));
	a.pp_pid = pid;
	a.pp_state = (pw = getpwnam(in->mi_name)) == NULL ?
	    PROTO_PROC_NONE : proto_proc_state(pid, pw->pw_uid);
	if ((len = proto_proc_enc(&a, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_PROC, buf, len);
}
