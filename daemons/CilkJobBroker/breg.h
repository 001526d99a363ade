/*
 * CilkJobBroker: what a JOB_REGISTER must pass before the registry sees
 * it.  The cookie the broker sent to its source address (cookie.h), so
 * that a user's registration signed from a forged address cannot make
 * every idle node send description requests there; then the user's
 * rate (user_register_rate a second after a burst of BREG_BURST), so
 * that no user floods the broker and its log.  Lines about one user's
 * registrations are logged on that user's own budget, then one summary.
 */
#ifndef CILKJOBBROKER_BREG_H
#define CILKJOBBROKER_BREG_H

#include "conf.h"
#include "cookie.h"
#include "keyrate.h"
#include "msg.h"
#include "proto.h"

#define BREG_BURST	64	/* registrations of a user at once */
#define BREG_USERS	1024	/* users tracked; the rest forgotten */
#define BREG_RATE	10	/* user_register_rate's default */

struct breg {
	struct keyrate		 rg_users;
	const struct cookie_key	*rg_cookie;
};

int	breg_init(struct breg *, const struct cookie_key *);
void	breg_fini(struct breg *);
/*
 * 1 when r (decoded from in) may be acted on now; else 0, and in was
 * answered: COOKIE without a good cookie, ERROR "registering too fast
 * (user_register_rate)" beyond the user's rate.
 */
int	breg_admit(struct breg *, const struct conf *, struct msg_ep *,
	    const struct msg_in *, const struct proto_job_reg *, double now);
/* 1 if a line about user's registrations may be logged now. */
int	breg_may_log(struct breg *, const char *user, double now);

#endif
