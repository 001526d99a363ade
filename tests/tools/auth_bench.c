/*
 * auth_bench — what authorising a user's message costs, for
 * tests/bench/auth.sh: a job registration (a message under the user
 * scheme, sealed by the job manager and opened by the broker) and a
 * job description (served by the job manager, checked by a node
 * manager's parent), each sealed and opened COUNT times with the user's
 * Ed25519 key and with a MUNGE credential from the munged at SOCKET, in
 * the same run.  Prints one JSON object of microseconds per operation.
 *   auth_bench SOCKET COUNT
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "mono.h"
#include "msg.h"
#include "proto.h"

static struct msg_users	*users;
static uint8_t		 payload[MSG_PAYLOAD_MAX], sealed[MSG_SEALED_MAX];
static uint8_t		 opened[MSG_PAYLOAD_MAX];

/* The broker's view of a registration: seal, then open; us each. */
static void
bench_reg(struct msg_keyring *snd, struct msg_keyring *rcv, int n,
    double *seal_us, double *open_us)
{
	struct proto_job_reg r;
	struct msg_addr to;
	struct msg_hdr h;
	double t0, ts = 0, to_ = 0;
	size_t len, slen, plen;
	int i;

	memset(&r, 0, sizeof(r));
	r.jr_pri = 1;
	r.jr_start_ms = now_real_ms();
	strlcpy(r.jr_command, "queens -NoChouse -Host=127.0.0.1 -Port=4000 "
	    "-- -d 1000 12", sizeof(r.jr_command));
	len = proto_job_reg_enc(&r, payload, sizeof(payload));
	memset(&to, 0, sizeof(to));
	to.ma_family = 4;
	to.ma_addr[0] = 127;
	to.ma_addr[3] = 1;
	to.ma_port = 7410;
	for (i = 0; i < n; i++) {
		t0 = now_mono();
		if (msg_seal(snd, MSG_SCHEME_USER, PROTO_H_JOB_REGISTER, &to,
		    now_real_ms(), payload, len, sealed, sizeof(sealed),
		    &slen) == -1)
			err(1, "seal");
		ts += now_mono() - t0;
		t0 = now_mono();
		if (msg_open(rcv, now_mono(), sealed, slen, &h, opened,
		    sizeof(opened), &plen) != MSG_DROP_NONE)
			errx(1, "open failed");
		to_ += now_mono() - t0;
	}
	*seal_us = ts / n * 1e6;
	*open_us = to_ / n * 1e6;
}

/* A description with a typical environment: seal, then open. */
static void
bench_desc(struct msg_keyring *snd, struct msg_keyring *rcv, int n,
    const char *user, double *seal_us, double *open_us)
{
	static char env[40][96];
	struct proto_desc d, got;
	char why[256], arg0[] = "/usr/bin/queens", arg1[] = "12";
	double t0, ts = 0, to_ = 0;
	size_t len;
	int i;

	memset(&d, 0, sizeof(d));
	d.de_job = 1;
	strlcpy(d.de_user, user, sizeof(d.de_user));
	strlcpy(d.de_cwd, "/home/ann", sizeof(d.de_cwd));
	d.de_pri = 1;
	d.de_argc = 2;
	d.de_argv[0] = arg0;
	d.de_argv[1] = arg1;
	for (i = 0; i < 40; i++) {
		snprintf(env[i], sizeof(env[i]), "VARIABLE_%02d=%s", i,
		    "some value of a typical length, /usr/local/bin");
		d.de_env[i] = env[i];
	}
	d.de_envc = 40;
	for (i = 0; i < n; i++) {
		d.de_issued_ms = now_real_ms();
		t0 = now_mono();
		if ((len = proto_desc_seal(&d, snd, payload,
		    sizeof(payload))) == 0)
			errx(1, "description seal failed");
		ts += now_mono() - t0;
		t0 = now_mono();
		if (proto_desc_open(&got, rcv, now_mono(), payload, len, why,
		    sizeof(why)) == -1)
			errx(1, "description open: %s", why);
		to_ += now_mono() - t0;
		proto_desc_free(&got);
	}
	*seal_us = ts / n * 1e6;
	*open_us = to_ / n * 1e6;
}

int
main(int argc, char *argv[])
{
	static struct msg_keyring ed_snd, ed_rcv, mu_snd, mu_rcv;
	char dir[] = "/tmp/cilknow-authbench.XXXXXX", path[256];
	struct msg_key k, pub;
	struct msg_keyset ks;
	char why[256];
	double r[8];
	int n;

	if (argc != 3 || sodium_init() < 0 || (n = atoi(argv[2])) <= 0)
		errx(2, "usage: auth_bench SOCKET COUNT");
	/* Ed25519: bench's key, its public half where a daemon reads it. */
	if (mkdtemp(dir) == NULL ||
	    msg_key_generate(&k, MSG_KEY_USER, "bench") == -1)
		err(1, "setup");
	msg_key_public(&k, &pub);
	memset(&ks, 0, sizeof(ks));
	ks.ks_key[0] = pub;
	ks.ks_n = 1;
	snprintf(path, sizeof(path), "%s/bench.pub", dir);
	if (msg_keyset_save(&ks, path, 0, why, sizeof(why)) == -1 ||
	    (users = msg_users_load(dir)) == NULL)
		errx(1, "%s", why);
	ed_snd.kr_user.ks_key[0] = k;
	ed_snd.kr_user.ks_n = 1;
	ed_rcv.kr_users = users;
	/* munge: this process's user, the munged at SOCKET. */
	mu_snd.kr_munge = 1;
	strlcpy(mu_snd.kr_munge_socket, argv[1], sizeof(mu_snd.kr_munge_socket));
	if (msg_munge_user(geteuid(), mu_snd.kr_munge_name,
	    sizeof(mu_snd.kr_munge_name)) == -1)
		errx(1, "no user name for uid %u", (unsigned)geteuid());
	mu_rcv.kr_user_auth = 1u << MSG_SCHEME_MUNGE;
	strlcpy(mu_rcv.kr_munge_socket, argv[1], sizeof(mu_rcv.kr_munge_socket));
	bench_reg(&ed_snd, &ed_rcv, n, &r[0], &r[1]);
	bench_reg(&mu_snd, &mu_rcv, n, &r[2], &r[3]);
	bench_desc(&ed_snd, &ed_rcv, n, "bench", &r[4], &r[5]);
	bench_desc(&mu_snd, &mu_rcv, n, mu_snd.kr_munge_name, &r[6], &r[7]);
	printf("{\"count\": %d, \"reg\": {\"user\": [%.1f, %.1f], "
	    "\"munge\": [%.1f, %.1f]}, \"desc\": {\"user\": [%.1f, %.1f], "
	    "\"munge\": [%.1f, %.1f]}}\n", n, r[0], r[1], r[2], r[3], r[4],
	    r[5], r[6], r[7]);
	(void)unlink(path);
	(void)rmdir(dir);
	msg_users_free(users);
	return 0;
}
