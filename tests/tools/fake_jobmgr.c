/*
 * fake_jobmgr — a job manager that lies, for tests: it registers a job
 * with the broker under the configured user's key (so nodes are
 * assigned to it) but answers every description request with a forgery.
 *   fake_jobmgr CONF MODE SECONDS [KEYFILE]
 * MODE other-key: the description claims the configured user but is
 *                 signed by KEYFILE (another user's key);
 *      unsigned:  the description's signature is zeros.
 * Prints "forged N" (descriptions served) when SECONDS are up.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evloop.h"
#include "mono.h"
#include "msg_keyring.h"
#include "proto.h"

struct fake {
	struct msg_ep		*f_ep;
	struct msg_keyring	 f_kr;
	struct msg_keyset	 f_other;
	struct msg_addr		 f_broker;
	const char		*f_mode;
	uint32_t		 f_job;
	int			 f_has_cookie;	/* the broker's, echoed */
	uint8_t			 f_cookie[PROTO_COOKIE_LEN];
	int			 f_forged;
	uint8_t			 f_buf[MSG_PAYLOAD_MAX];
};

static void
on_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct fake *f = arg;
	struct proto_ack a;

	(void)ep;
	if (proto_ack_dec(&a, in->mi_data, in->mi_len) == 0 && a.ak_id != 0 &&
	    f->f_job == 0) {
		f->f_job = a.ak_id;
		printf("registered job %u\n", a.ak_id);
		fflush(stdout);
	}
}

static void
on_desc_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct fake *f = arg;
	struct proto_desc d;
	char *argv[] = { "/bin/touch", "/tmp/fake_jobmgr_ran" };
	size_t n;

	memset(&d, 0, sizeof(d));
	d.de_job = f->f_job;
	strlcpy(d.de_user, f->f_kr.kr_user.ks_key[0].k_name,
	    sizeof(d.de_user));
	strlcpy(d.de_cwd, "/", sizeof(d.de_cwd));
	d.de_pri = 1;
	d.de_argc = 2;
	memcpy(d.de_argv, argv, sizeof(argv));
	if (strcmp(f->f_mode, "other-key") == 0)
		n = proto_desc_sign(&d, &f->f_other.ks_key[0], f->f_buf,
		    sizeof(f->f_buf));
	else {
		n = proto_desc_sign(&d, &f->f_kr.kr_user.ks_key[0], f->f_buf,
		    sizeof(f->f_buf));
		memset(f->f_buf + n - 64, 0, 64);
	}
	f->f_forged++;
	(void)msg_ep_reply(ep, in, PROTO_H_DESC, f->f_buf, n);
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct fake *f = arg;
	struct proto_job_reg r;
	size_t n;

	memset(&r, 0, sizeof(r));
	r.jr_job = f->f_job;
	r.jr_boot = 1;
	r.jr_pri = 1;
	r.jr_start_ms = now_real_ms();
	strlcpy(r.jr_command, "forged", sizeof(r.jr_command));
	r.jr_has_cookie = (uint8_t)f->f_has_cookie;
	memcpy(r.jr_cookie, f->f_cookie, sizeof(r.jr_cookie));
	n = proto_job_reg_enc(&r, f->f_buf, sizeof(f->f_buf));
	(void)msg_ep_send(f->f_ep, &f->f_broker, MSG_SCHEME_USER,
	    PROTO_H_JOB_REGISTER, f->f_buf, n);
	evloop_timer_add(loop, 0.5, on_tick, f);
}

/* The broker registers us only with its cookie: the next tick has it. */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct fake *f = arg;
	struct proto_cookie c;

	(void)ep;
	if (proto_cookie_dec(&c, in->mi_data, in->mi_len) == 0) {
		memcpy(f->f_cookie, c.co_cookie, sizeof(f->f_cookie));
		f->f_has_cookie = 1;
	}
}

static void
on_end(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

int
main(int argc, char *argv[])
{
	static struct fake f;
	static struct msg_handler table[PROTO_H_MAX];
	struct evloop *loop;
	struct conf *cf;
	struct msg_addr any;
	char why[512];

	if (argc < 4 || sodium_init() < 0)
		errx(2, "usage: fake_jobmgr CONF MODE SECONDS [KEYFILE]");
	f.f_mode = argv[2];
	if ((cf = conf_new()) == NULL ||
	    conf_load_file(cf, argv[1], 0, stderr) != 0)
		errx(2, "%s: bad config", argv[1]);
	if (msg_keyring_load(&f.f_kr, cf, MSG_KR_USER, NULL, why,
	    sizeof(why)) == -1)
		errx(1, "%s", why);
	if (strcmp(f.f_mode, "other-key") == 0 && (argc < 5 ||
	    msg_keyset_load(&f.f_other, argv[4], MSG_KEY_USER, why,
	    sizeof(why)) == -1))
		errx(1, "other-key needs a readable KEYFILE");
	if (msg_addr_parse(&f.f_broker, conf_get(cf, "broker"), 7410) == -1)
		errx(1, "bad broker");
	table[PROTO_H_JOB_ACK].mh_schemes = MSG_SCHEMES_ALL;
	table[PROTO_H_JOB_ACK].mh_fn = on_ack;
	table[PROTO_H_COOKIE].mh_schemes = MSG_SCHEMES_ALL;
	table[PROTO_H_COOKIE].mh_fn = on_cookie;
	table[PROTO_H_DESC_REQ].mh_schemes = MSG_SCHEMES_ALL;
	table[PROTO_H_DESC_REQ].mh_fn = on_desc_req;
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if ((loop = evloop_new()) == NULL ||
	    (f.f_ep = msg_ep_new(loop, &f.f_kr, table, PROTO_H_MAX, &f,
	    NULL)) == NULL || msg_ep_bind(f.f_ep, &any) == -1)
		err(1, "endpoint");
	on_tick(loop, &f);
	evloop_timer_add(loop, atof(argv[3]), on_end, &f);
	(void)evloop_run(loop);
	printf("forged %d\n", f.f_forged);
	msg_ep_free(f.f_ep);
	evloop_free(loop);
	conf_free(cf);
	return 0;
}
