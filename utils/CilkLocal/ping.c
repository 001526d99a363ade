/* CilkLocal: authenticated pings to every daemon, in parallel, bounded. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "log.h"
#include "mono.h"
#include "msg.h"
#include "msg_keyring.h"

#define PING_EVERY	0.25	/* seconds between pings to the silent */

struct pinger {
	struct local	*p_lo;
	double		*p_sent;	/* per daemon, now_mono() */
	size_t		 p_answered;
};

static void
on_pong(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct pinger *p = arg;
	struct local_daemon *d;
	struct msg_pong po;
	size_t i;

	(void)ep;
	if (msg_pong_parse(in->mi_data, in->mi_len, &po) == -1)
		return;
	for (i = 0; i < p->p_lo->lo_nd; i++) {
		d = &p->p_lo->lo_d[i];
		if (!msg_addr_eq(&d->ld_maddr, &in->mi_from) || d->ld_answers)
			continue;
		d->ld_answers = 1;
		d->ld_rtt = now_mono() - p->p_sent[i];
		p->p_answered++;
	}
}

static const struct msg_handler ping_table[MSG_H_PONG + 1] = {
	[MSG_H_PONG] = { "pong", MSG_SCHEMES_ALL, on_pong },
};

/* Everything needed to ping as the cluster (or as its user). */
static int
ping_setup(struct local *lo, struct evloop **loopp, struct msg_keyring *kr,
    struct pinger *p, struct msg_ep **epp, enum msg_scheme *scheme)
{
	struct msg_ep_opts eo;
	struct msg_addr any;
	struct conf *cf;
	char path[PATH_MAX], why[512];

	if (local_path(lo, path, sizeof(path), "cilknow.conf") == -1)
		return -1;
	if ((cf = conf_new()) == NULL)
		err(CLI_EXIT_FAILURE, "conf_new");
	if (conf_load_file(cf, path, 0, stderr) != 0) {
		warnx("%s: cannot read the cluster's configuration", path);
		conf_free(cf);
		return -1;
	}
	if (msg_keyring_load(kr, cf, MSG_KR_CLUSTER_OPT | MSG_KR_USER_OPT,
	    "local", why, sizeof(why)) == -1) {
		warnx("%s", why);
		conf_free(cf);
		return -1;
	}
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	conf_free(cf);
	if (kr->kr_cluster.ks_n > 0)
		*scheme = MSG_SCHEME_CLUSTER;
	else if (kr->kr_user.ks_n > 0)
		*scheme = MSG_SCHEME_USER;
	else {
		warnx("no key readable in %s to ping the daemons with",
		    lo->lo_dir);
		return -1;
	}
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if ((*loopp = evloop_new()) == NULL ||
	    (*epp = msg_ep_new(*loopp, kr, ping_table, MSG_H_PONG + 1, p,
	    &eo)) == NULL || msg_ep_bind(*epp, &any) == -1) {
		warn("ping endpoint");
		return -1;
	}
	return 0;
}

/*
 * Pings every daemon that has not exited until each has answered, limit
 * seconds have passed, or tick (called often, may be NULL) returns
 * non-zero.  Sets ld_answers and ld_rtt.  0 if every daemon answered,
 * -1 if one did not (or has exited).
 */
int
local_ping(struct local *lo, double limit,
    int (*tick)(struct local *, void *), void *arg)
{
	struct msg_keyring *kr;
	struct evloop *loop = NULL;
	struct msg_ep *ep = NULL;
	struct pinger p;
	enum msg_scheme scheme = MSG_SCHEME_UNDEF;
	uint8_t buf[MSG_PING_FIXED];
	double deadline = now_mono() + limit, next = 0, now;
	size_t i, want;
	uint64_t seq = 0;
	int rc = -1;

	memset(&p, 0, sizeof(p));
	p.p_lo = lo;
	for (i = 0; i < lo->lo_nd; i++) {
		lo->lo_d[i].ld_answers = 0;
		lo->lo_d[i].ld_rtt = 0;
	}
	if ((kr = calloc(1, sizeof(*kr))) == NULL ||
	    (p.p_sent = calloc(lo->lo_nd + 1, sizeof(*p.p_sent))) == NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	if (ping_setup(lo, &loop, kr, &p, &ep, &scheme) == -1)
		goto out;
	for (;;) {
		now = now_mono();
		want = 0;
		for (i = 0; i < lo->lo_nd; i++)
			if (!lo->lo_d[i].ld_exited && !lo->lo_d[i].ld_answers)
				want++;
		if (want == 0)
			break;
		if (now >= deadline)
			break;
		if (tick != NULL && tick(lo, arg) != 0)
			break;
		if (now >= next) {
			for (i = 0; i < lo->lo_nd; i++) {
				struct local_daemon *d = &lo->lo_d[i];

				if (d->ld_exited || d->ld_answers)
					continue;
				msg_ping_build(buf, sizeof(buf), seq++,
				    now_real_ns());
				p.p_sent[i] = now_mono();
				if (msg_ep_send(ep, &d->ld_maddr, scheme,
				    MSG_H_PING, buf, sizeof(buf)) == -1)
					log_debug("ping %s: send failed",
					    d->ld_addr);
			}
			next = now + PING_EVERY;
		}
		if (evloop_run_once(loop, 0.05) == -1) {
			warn("event loop");
			break;
		}
	}
	rc = 0;
	for (i = 0; i < lo->lo_nd; i++)
		if (!lo->lo_d[i].ld_answers)
			rc = -1;
 out:
	msg_ep_free(ep);
	evloop_free(loop);
	msg_keyring_clear(kr);
	free(kr);
	free(p.p_sent);
	return rc;
}
