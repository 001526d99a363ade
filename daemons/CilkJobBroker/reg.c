/* CilkJobBroker: a registration's cookie and its user's rate (breg.h). */
#include <stdio.h>
#include <string.h>

#include "breg.h"
#include "log.h"

int
breg_init(struct breg *rg, const struct cookie_key *ck)
{
	rg->rg_cookie = ck;
	/* 20 lines a minute of each user, then a count. */
	return keyrate_init(&rg->rg_users, BREG_USERS, BREG_RATE, BREG_BURST,
	    (struct log_rate)LOG_RATE_DEFAULT);
}

void
breg_fini(struct breg *rg)
{
	keyrate_fini(&rg->rg_users);
}

int
breg_may_log(struct breg *rg, const char *user, double now)
{
	struct keyrate_ent *e;
	char what[MSG_NAME_MAX + 64];

	e = keyrate_get(&rg->rg_users, user, strlen(user), now);
	snprintf(what, sizeof(what), "lines about registrations of %s", user);
	return log_rate(&e->ke_log, now, what);
}

int
breg_admit(struct breg *rg, const struct conf *cf, struct msg_ep *ep,
    const struct msg_in *in, const struct proto_job_reg *r, double now)
{
	struct keyrate_ent *e;
	unsigned rate;

	/* The cheap check first, and what a forger can never pass. */
	if (!cookie_proved(rg->rg_cookie, ep, in, now, r->jr_has_cookie,
	    r->jr_cookie))
		return 0;
	/* As configured now (a reload may have changed it). */
	if (conf_get_count(cf, "user_register_rate", &rate) == -1 ||
	    rate == 0)
		rate = BREG_RATE;
	rg->rg_users.kr_rate = rate;
	e = keyrate_get(&rg->rg_users, in->mi_name, strlen(in->mi_name), now);
	if (keyrate_take_ent(&rg->rg_users, e, now))
		return 1;
	if (breg_may_log(rg, in->mi_name, now))
		log_info("job register from %s refused: registering too fast "
		    "(user_register_rate %u a second)", in->mi_name, rate);
	proto_reply_error(ep, in, "registering too fast (user_register_rate)");
	return 0;
}
