/*
 * CilkJobBroker's side of CilkKill(1): a signed KILL_REQ ends jobs as
 * broker_kill() decides, each ended job's manager is told (JOB_ENDED),
 * and the registry's change goes out at once, so that the nodes running
 * the jobs stop their workers as after an unregistration.
 */
#ifndef CILKJOBBROKER_BKILL_H
#define CILKJOBBROKER_BKILL_H

#include "bacct.h"
#include "broker_kill.h"
#include "cookie.h"
#include "dctx.h"

struct bkill {
	struct dctx		*bk_dc;
	struct broker		*bk_br;
	struct broker_kill	 bk_mem;
	void			(*bk_changed)(void *);	/* schedule, push */
	void			*bk_arg;
	struct bacct		*bk_acct;	/* NULL: no history */
	const struct cookie_key	*bk_cookie;	/* the broker's (main.c) */
	uint8_t			 bk_buf[MSG_PAYLOAD_MAX];
};

void	bkill_init(struct bkill *, struct dctx *, struct broker *,
	    void (*changed)(void *), void *arg);
void	bkill_fini(struct bkill *);
/*
 * Acts only with the cookie the broker sent to the asker's address
 * (else answers COOKIE): the user form's answer is many times the
 * request, and must not go to a forged address.
 */
void	bkill_on_req(struct bkill *, struct msg_ep *, const struct msg_in *);
/*
 * A job manager registers a job that was ended: it is told again
 * (JOB_ENDED, it may have missed the first) and the registration must
 * not bring the job back.  1 if so, else 0.
 */
int	bkill_on_register(struct bkill *, struct msg_ep *,
	    const struct msg_in *, const struct proto_job_reg *);
/*
 * Forgets jobs ended more than 3 register intervals ago, and whose job
 * managers have not registered them since.
 */
void	bkill_expire(struct bkill *, double now);

#endif
