/*
 * reg_flood — one user registering jobs as fast as it can, for tests:
 * from one address, under CONF's user key, a new job with a 255-byte
 * command line at every turn, each unregistered as soon as the broker
 * acknowledges it (so user_jobs never stops it), echoing the broker's
 * cookie as a job manager does.
 *   reg_flood CONF MAX-REGISTRATIONS MAX-SECONDS
 * Sends at most MAX-REGISTRATIONS registrations in at most MAX-SECONDS
 * (a burst of 4 every millisecond at most, ten times the rate of the
 * flood issue 27 measured), waits a second for the
 * last answers, and prints
 *   sent S acked A too-fast T refused R cookies C
 * (R: other refusals).  Exits 0, or 2 on bad use.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "evloop.h"
#include "mono.h"
#include "msg_keyring.h"
#include "proto.h"

#define IDS	(1u << 20)		/* job ids remembered, as bits */

struct flood {
	struct evloop		*f_loop;
	struct msg_ep		*f_ep;
	struct msg_keyring	 f_kr;
	struct msg_addr		 f_broker;
	long			 f_max, f_sent, f_acked, f_fast, f_refused;
	long			 f_cookies;
	double			 f_end;
	int			 f_has_cookie;
	uint8_t			 f_cookie[PROTO_COOKIE_LEN];
	uint8_t			 f_seen[IDS / 8];
	uint8_t			 f_buf[MSG_PAYLOAD_MAX];
};

static void
send_reg(struct flood *f)
{
	struct proto_job_reg r;
	size_t n;

	memset(&r, 0, sizeof(r));
	randombytes_buf(&r.jr_boot, sizeof(r.jr_boot));
	r.jr_pri = 1;
	r.jr_start_ms = now_real_ms();
	memset(r.jr_command, 'x', PROTO_COMMAND_MAX - 1);
	memcpy(r.jr_command, "flood ", 6);
	r.jr_has_cookie = (uint8_t)f->f_has_cookie;
	memcpy(r.jr_cookie, f->f_cookie, sizeof(r.jr_cookie));
	if ((n = proto_job_reg_enc(&r, f->f_buf, sizeof(f->f_buf))) == 0)
		errx(1, "cannot encode a registration");
	(void)msg_ep_send(f->f_ep, &f->f_broker, MSG_SCHEME_USER,
	    PROTO_H_JOB_REGISTER, f->f_buf, n);
	f->f_sent++;
}

static void
on_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct flood *f = arg;
	struct proto_job_unreg u;
	struct proto_ack a;
	size_t n;

	(void)ep;
	if (proto_ack_dec(&a, in->mi_data, in->mi_len) == -1 || a.ak_id == 0)
		return;
	/* The second ACK of an id answers our unregistration. */
	if (f->f_seen[a.ak_id % IDS / 8] & (1u << (a.ak_id % 8)))
		return;
	f->f_seen[a.ak_id % IDS / 8] |= (uint8_t)(1u << (a.ak_id % 8));
	f->f_acked++;
	u.ju_job = a.ak_id;
	if ((n = proto_job_unreg_enc(&u, f->f_buf, sizeof(f->f_buf))) > 0)
		(void)msg_ep_send(f->f_ep, &f->f_broker, MSG_SCHEME_USER,
		    PROTO_H_JOB_UNREGISTER, f->f_buf, n);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct flood *f = arg;
	struct proto_error e;

	(void)ep;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != PROTO_H_JOB_REGISTER)
		return;
	if (strstr(e.er_reason, "too fast") != NULL)
		f->f_fast++;
	else
		f->f_refused++;
}

static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct flood *f = arg;
	struct proto_cookie c;

	(void)ep;
	if (proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1)
		return;
	memcpy(f->f_cookie, c.co_cookie, sizeof(f->f_cookie));
	f->f_has_cookie = 1;
	f->f_cookies++;
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct flood *f = arg;
	int i;

	if (f->f_sent >= f->f_max || now_mono() >= f->f_end) {
		evloop_break(loop);
		return;
	}
	for (i = 0; i < 4 && f->f_sent < f->f_max; i++)
		send_reg(f);
	evloop_timer_add(loop, 0.001, on_tick, f);
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
	static struct flood f;
	static struct msg_handler table[PROTO_H_MAX];
	struct conf *cf;
	struct msg_addr any;
	char why[512];

	if (argc != 4 || sodium_init() < 0)
		errx(2, "usage: reg_flood CONF MAX-REGISTRATIONS MAX-SECONDS");
	if ((cf = conf_new()) == NULL ||
	    conf_load_file(cf, argv[1], 0, stderr) != 0)
		errx(2, "%s: bad config", argv[1]);
	if (msg_keyring_load(&f.f_kr, cf, MSG_KR_USER, NULL, why,
	    sizeof(why)) == -1)
		errx(1, "%s", why);
	if (msg_addr_parse(&f.f_broker, conf_get(cf, "broker"), 7410) == -1)
		errx(2, "bad broker");
	f.f_max = atol(argv[2]);
	f.f_end = now_mono() + atof(argv[3]);
	table[PROTO_H_JOB_ACK] = (struct msg_handler){ "ack",
	    MSG_SCHEMES_ALL, on_ack };
	table[PROTO_H_ERROR] = (struct msg_handler){ "error",
	    MSG_SCHEMES_ALL, on_error };
	table[PROTO_H_COOKIE] = (struct msg_handler){ "cookie",
	    MSG_SCHEMES_ALL, on_cookie };
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if ((f.f_loop = evloop_new()) == NULL ||
	    (f.f_ep = msg_ep_new(f.f_loop, &f.f_kr, table, PROTO_H_MAX, &f,
	    NULL)) == NULL || msg_ep_bind(f.f_ep, &any) == -1)
		err(1, "endpoint");
	/* First the cookie, as a job manager gets it. */
	send_reg(&f);
	f.f_sent = 0;
	evloop_timer_add(f.f_loop, 0.2, on_tick, &f);
	(void)evloop_run(f.f_loop);
	evloop_timer_add(f.f_loop, 1.0, on_end, &f);
	(void)evloop_run(f.f_loop);
	printf("sent %ld acked %ld too-fast %ld refused %ld cookies %ld\n",
	    f.f_sent, f.f_acked, f.f_fast, f.f_refused, f.f_cookies);
	msg_ep_free(f.f_ep);
	evloop_free(f.f_loop);
	conf_free(cf);
	return 0;
}
