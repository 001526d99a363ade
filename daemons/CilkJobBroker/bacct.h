/*
 * CilkJobBroker's accounting (CilkHist(1)): the history database
 * (acct.h) in state_dir/broker, the records job managers send (ACCT,
 * checked to come from the job's own user and, while it is registered,
 * its job manager), CilkHist's questions (ACCT_REQ: a user sees their
 * own jobs, an administrator all; answered a page at a time, and under
 * the user scheme only to an address that echoed a cookie), and
 * --after's (AFTER_REQ).  The registry's own events (a job registered,
 * unregistered, ended by CilkKill, fallen silent) are written here too,
 * so a job has its row even when its job manager's records are lost.
 */
#ifndef CILKJOBBROKER_BACCT_H
#define CILKJOBBROKER_BACCT_H

#include <limits.h>

#include "acct.h"
#include "broker.h"
#include "cookie.h"
#include "dctx.h"

#define BACCT_PRUNE_EVERY	3600.0	/* seconds between retention runs */
#define BACCT_END_GRACE		30.0	/* an end with no status: the job
					   manager's record may still come */

struct bacct {
	struct dctx		*ba_dc;
	struct broker		*ba_br;
	struct cookie_key	*ba_cookie;
	struct acct		*ba_db;
	char			 ba_path[PATH_MAX];
	uint8_t			 ba_buf[MSG_PAYLOAD_MAX];
};

/*
 * Opens the database (after the privilege drop: the engine owns it).
 * -1 with a message: the broker does not start without its history.
 */
int	bacct_init(struct bacct *, struct dctx *, struct broker *,
	    char *err, size_t errlen);
/*
 * Retention now and every BACCT_PRUNE_EVERY; cookies from ck.  Once
 * every job manager alive has registered again (3 intervals and a
 * second), jobs the history has running but the registry lacks (their
 * job managers died while we were down) are marked lost.
 */
void	bacct_start(struct bacct *, struct cookie_key *ck);
void	bacct_fini(struct bacct *);
/* The highest job id in the history (0: none). */
uint32_t bacct_max_job(struct bacct *);

/* Registry events. */
void	bacct_job_registered(struct bacct *, const struct broker_job *);
void	bacct_job_left(struct bacct *, uint32_t job, uint8_t state);
/* Before broker_expire(): the jobs it will forget are marked lost. */
void	bacct_expire(struct bacct *, double now);
/* Before broker_job_withdraw(): those jobs ended. */
void	bacct_withdraw(struct bacct *, const char *user,
	    const struct msg_addr *);

void	bacct_on_acct(struct bacct *, struct msg_ep *, const struct msg_in *);
void	bacct_on_req(struct bacct *, struct msg_ep *, const struct msg_in *);
void	bacct_on_after(struct bacct *, struct msg_ep *,
	    const struct msg_in *);

#endif
