/*
 * munge_probe — for tests of the munge user scheme: sends one ping
 * authorised by a MUNGE credential (CILKNOW_CONF's munge_socket, or
 * MUNGE_PROBE_SOCKET: another munged, another key), spoiled as MODE
 * says, to ADDR:PORT, then says whether a pong came, then asks again
 * with a good ping for the target's drop counters.
 *   munge_probe MODE ADDR:PORT [ADDR2:PORT2]
 * MODE: ok; expired (a credential with a TTL of 1 s, sent 2.5 s
 * later); claim=NAME (the header claims NAME, the credential is ours);
 * moved (the credential of one ping on another); cluster (the scheme
 * byte says cluster); handler (a good credential for a handler that
 * wants the cluster scheme: node-to-node pairing); tsteal (a good
 * credential for a job's worker-to-worker steal, which wants the job
 * scheme: cilknow-protocol(7)); twice (the same
 * datagram to ADDR:PORT, then to ADDR2:PORT2: one munged, two
 * receivers); garbage=N (N copies, each with another credential of
 * random base64 of the same length: what munged cannot decode, sent in
 * bursts of 100 every 10 ms); replay=N (the same good datagram N times,
 * so paced).  MUNGE_PROBE_BIND=ADDR sends from ADDR.  Prints "answer
 * yes|no" (flood modes: "sent N in S s"), then "counters NAME=N ...".
 * Exits 0, or 2 on bad use, 77 if no munged answers.
 */
#include <sys/socket.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "cn_steal.h"
#include "evloop.h"
#include "mono.h"
#include "msg.h"
#include "msg_keyring.h"
#include "proto.h"

struct probe {
	struct evloop		*p_loop;
	struct msg_ep		*p_ep;
	int			 p_got;
	struct msg_pong		 p_pong;
};

static void
on_pong(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct probe *p = arg;

	(void)ep;
	if (msg_pong_parse(in->mi_data, in->mi_len, &p->p_pong) == 0) {
		p->p_got = 1;
		evloop_break(p->p_loop);
	}
}

static void
on_deadline(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

static void
send_raw(struct probe *p, const struct msg_addr *to, const uint8_t *buf,
    size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = msg_addr_to_sockaddr(to, &ss);

	if (sendto(msg_ep_fd(p->p_ep), buf, len, 0, (struct sockaddr *)&ss,
	    sl) != (ssize_t)len)
		err(1, "sendto");
}

/* Waits up to 1.5 s for a pong. */
static int
answered(struct probe *p)
{
	struct evtimer *t;

	p->p_got = 0;
	t = evloop_timer_add(p->p_loop, 1.5, on_deadline, NULL);
	(void)evloop_run(p->p_loop);
	if (p->p_got)
		evloop_timer_cancel(p->p_loop, t);
	return p->p_got;
}

static size_t
seal(struct msg_keyring *kr, uint16_t handler, const struct msg_addr *to,
    uint8_t *out, size_t cap)
{
	uint8_t ping[MSG_PING_FIXED];
	size_t n, len;

	n = msg_ping_build(ping, sizeof(ping), 1, now_real_ns());
	if (msg_seal(kr, MSG_SCHEME_USER, handler, to, now_real_ms(), ping,
	    n, out, cap, &len) == -1)
		err(1, "seal");
	return len;
}

int
main(int argc, char *argv[])
{
	static struct msg_handler table[MSG_H_USER];
	static struct msg_keyring kr;
	static uint8_t a[MSG_SEALED_MAX], b[MSG_SEALED_MAX];
	static struct probe p;
	struct msg_addr to, to2, any;
	struct conf *cf;
	const char *mode, *conf = getenv("CILKNOW_CONF"), *sock;
	size_t alen, blen, ca, cb;
	char why[512];
	int i;

	if ((argc != 3 && argc != 4) || conf == NULL || sodium_init() < 0)
		errx(2, "usage: CILKNOW_CONF=FILE munge_probe MODE ADDR:PORT "
		    "[ADDR2:PORT2]");
	mode = argv[1];
	if ((cf = conf_new()) == NULL ||
	    conf_load_file(cf, conf, 0, stderr) != 0)
		errx(2, "%s: bad config", conf);
	if (conf_override(cf, "user_auth=munge", why, sizeof(why)) == -1 ||
	    msg_keyring_load(&kr, cf, MSG_KR_USER_OPT, NULL, why,
	    sizeof(why)) == -1)
		errx(1, "%s", why);
	if (!kr.kr_munge) {
		printf("no munged answers at %s\n", kr.kr_munge_socket);
		return 77;
	}
	if (msg_addr_parse(&to, argv[2], 0) == -1 || (argc == 4 &&
	    msg_addr_parse(&to2, argv[3], 0) == -1))
		errx(2, "bad address");
	table[MSG_H_PONG].mh_schemes = MSG_SCHEMES_ALL;
	table[MSG_H_PONG].mh_fn = on_pong;
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if (getenv("MUNGE_PROBE_BIND") != NULL &&
	    msg_addr_parse(&any, getenv("MUNGE_PROBE_BIND"), 0) == -1)
		errx(2, "MUNGE_PROBE_BIND: bad address");
	if ((p.p_loop = evloop_new()) == NULL ||
	    (p.p_ep = msg_ep_new(p.p_loop, &kr, table, MSG_H_USER, &p,
	    NULL)) == NULL || msg_ep_bind(p.p_ep, &any) == -1)
		err(1, "endpoint");
	/* The spoilt ping, from another munged if asked. */
	if ((sock = getenv("MUNGE_PROBE_SOCKET")) != NULL)
		strlcpy(kr.kr_munge_socket, sock, sizeof(kr.kr_munge_socket));
	if (strcmp(mode, "expired") == 0)
		kr.kr_munge_ttl = 1;
	if (strncmp(mode, "claim=", 6) == 0)
		strlcpy(kr.kr_munge_name, mode + 6, sizeof(kr.kr_munge_name));
	alen = seal(&kr, strcmp(mode, "handler") == 0 ? PROTO_H_PAIR_REQ :
	    strcmp(mode, "tsteal") == 0 ? CN_H_TSTEAL : MSG_H_PING, &to, a,
	    sizeof(a));
	if (strcmp(mode, "moved") == 0) {
		/* b's credential, a's header and ping: two trailers swap. */
		blen = seal(&kr, MSG_H_PING, &to, b, sizeof(b));
		ca = (size_t)a[alen - 2] << 8 | a[alen - 1];
		cb = (size_t)b[blen - 2] << 8 | b[blen - 1];
		memcpy(a + alen - 2 - ca, b + blen - 2 - cb, cb + 2);
		alen = alen - ca + cb;
	} else if (strcmp(mode, "cluster") == 0)
		a[3] = MSG_SCHEME_CLUSTER;
	if (strcmp(mode, "expired") == 0) {
		struct timespec ts = { 2, 500000000 };

		/* munged's TTL is in whole seconds of its clock. */
		while (nanosleep(&ts, &ts) == -1)
			;
	}
	if (strncmp(mode, "garbage=", 8) == 0 ||
	    strncmp(mode, "replay=", 7) == 0) {
		static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789+/";
		struct timespec pause = { 0, 10000000 };
		long n = atol(strchr(mode, '=') + 1), k;
		double t0 = now_mono();
		size_t j;

		ca = (size_t)a[alen - 2] << 8 | a[alen - 1];
		for (k = 0; k < n; k++) {
			if (mode[0] == 'g')
				/* Keep munge's prefix and suffix ("MUNGE:", ":"). */
				for (j = 6; j + 1 < ca; j++)
					a[alen - 2 - ca + j] = (uint8_t)b64[
					    randombytes_uniform(64)];
			send_raw(&p, &to, a, alen);
			if (k % 100 == 99)
				(void)nanosleep(&pause, NULL);
		}
		printf("sent %ld in %.2f s\n", n, now_mono() - t0);
		/* The first replayed ping was answered: not the counters. */
		if (mode[0] == 'r')
			(void)answered(&p);
	} else {
		send_raw(&p, &to, a, alen);
		printf("answer %s\n", answered(&p) ? "yes" : "no");
	}
	if (strcmp(mode, "twice") == 0 && argc == 4) {
		send_raw(&p, &to2, a, alen);
		printf("answer2 %s\n", answered(&p) ? "yes" : "no");
		to = to2;
	}
	/* Then a good one, for the counters. */
	if (msg_keyring_load(&kr, cf, MSG_KR_USER_OPT, NULL, why,
	    sizeof(why)) == -1)
		errx(1, "%s", why);
	alen = seal(&kr, MSG_H_PING, &to, a, sizeof(a));
	send_raw(&p, &to, a, alen);
	if (!answered(&p))
		errx(1, "no answer to a good ping");
	printf("counters");
	for (i = 1; i < MSG_DROP_MAX; i++)
		printf(" %s=%llu", msg_drop_name(i),
		    (unsigned long long)p.p_pong.po_counters.mc_dropped[i]);
	printf("\n");
	msg_ep_free(p.p_ep);
	evloop_free(p.p_loop);
	conf_free(cf);
	return 0;
}
