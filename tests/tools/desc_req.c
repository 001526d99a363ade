/*
 * desc_req — a node manager whose answers get lost, for tests: asks a
 * job manager COUNT times for the description of JOB as node NODE, as
 * a node manager retries when no answer comes, prints "task T attempt
 * A" for every description that comes, and then goes away without ever
 * starting a worker.  It signs as the cluster, with CONF's cluster key.
 *   desc_req CONF JOBMGR_ADDR:PORT JOB NODE COUNT
 * Exits 0 if at least one description came, 1 if none, 2 on bad use.
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

struct dreq {
	struct msg_ep		*d_ep;
	struct msg_keyring	 d_kr;
	struct msg_addr		 d_jobmgr;
	struct proto_desc_req	 d_req;
	int			 d_left, d_got;
	uint8_t			 d_buf[MSG_PAYLOAD_MAX];
};

static void
on_desc(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct dreq *d = arg;
	struct proto_desc de;
	char why[256];
	const char *attempt = "?";
	uint16_t i;

	(void)ep;
	if (proto_desc_open(&de, &d->d_kr, now_mono(), in->mi_data,
	    in->mi_len, why, sizeof(why)) == -1) {
		printf("refused: %s\n", why);
		return;
	}
	for (i = 0; i < de.de_envc; i++)
		if (strncmp(de.de_env[i], "CILKNOW_ATTEMPT=", 16) == 0)
			attempt = de.de_env[i] + 16;
	printf("task %u attempt %s\n", de.de_task, attempt);
	fflush(stdout);
	d->d_got++;
	proto_desc_free(&de);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct proto_error e;

	(void)ep;
	(void)arg;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == 0)
		printf("error: %s\n", e.er_reason);
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct dreq *d = arg;
	size_t n;

	if (d->d_left-- <= 0) {
		evloop_break(loop);
		return;
	}
	n = proto_desc_req_enc(&d->d_req, d->d_buf, sizeof(d->d_buf));
	(void)msg_ep_send(d->d_ep, &d->d_jobmgr, MSG_SCHEME_USER,
	    PROTO_H_DESC_REQ, d->d_buf, n);
	/* As a node manager retries: every half second (FETCH_WAIT). */
	evloop_timer_add(loop, 0.5, on_tick, d);
}

int
main(int argc, char *argv[])
{
	static struct dreq d;
	static struct msg_handler table[PROTO_H_MAX];
	struct evloop *loop;
	struct conf *cf;
	struct msg_addr any;
	char why[512];

	if (argc != 6 || sodium_init() < 0)
		errx(2, "usage: desc_req CONF JOBMGR_ADDR:PORT JOB NODE COUNT");
	if ((cf = conf_new()) == NULL ||
	    conf_load_file(cf, argv[1], 0, stderr) != 0)
		errx(2, "%s: bad config", argv[1]);
	/* As a node: users' keys to check the description it gets. */
	if (msg_keyring_load(&d.d_kr, cf, MSG_KR_CLUSTER | MSG_KR_USERS, NULL,
	    why, sizeof(why)) == -1)
		errx(1, "%s", why);
	if (msg_addr_parse(&d.d_jobmgr, argv[2], 0) == -1)
		errx(2, "%s: bad address", argv[2]);
	d.d_req.dr_job = (uint32_t)strtoul(argv[3], NULL, 10);
	strlcpy(d.d_req.dr_node, argv[4], sizeof(d.d_req.dr_node));
	d.d_left = atoi(argv[5]);
	table[PROTO_H_DESC].mh_schemes = MSG_SCHEMES_ALL;
	table[PROTO_H_DESC].mh_fn = on_desc;
	table[PROTO_H_ERROR].mh_schemes = MSG_SCHEMES_ALL;
	table[PROTO_H_ERROR].mh_fn = on_error;
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if ((loop = evloop_new()) == NULL ||
	    (d.d_ep = msg_ep_new(loop, &d.d_kr, table, PROTO_H_MAX, &d,
	    NULL)) == NULL || msg_ep_bind(d.d_ep, &any) == -1)
		err(1, "endpoint");
	on_tick(loop, &d);
	(void)evloop_run(loop);
	msg_ep_free(d.d_ep);
	evloop_free(loop);
	conf_free(cf);
	return d.d_got > 0 ? 0 : 1;
}
