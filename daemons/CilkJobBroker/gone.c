/* CilkJobBroker: JOB_GONE to the nodes of a job that left the registry. */
#include <errno.h>
#include <string.h>

#include "gone.h"
#include "log.h"
#include "proto.h"

void
broker_tell_gone(struct msg_ep *ep, const struct broker *br, uint32_t job)
{
	struct proto_job_unreg m = { .ju_job = job };
	const struct broker_node *n;
	uint8_t buf[16];
	size_t len;

	if ((len = proto_job_unreg_enc(&m, buf, sizeof(buf))) == 0)
		return;
	TAILQ_FOREACH(n, &br->br_nodes, bn_entry)
		if (broker_node_runs(n, job) &&
		    msg_ep_send(ep, &n->bn_addr, MSG_SCHEME_CLUSTER,
		    PROTO_H_JOB_GONE, buf, len) == -1)
			log_warnx("job %u: could not tell node %u (%s) that it "
			    "ended: %s", job, n->bn_id, n->bn_host,
			    strerror(errno));
}
