/*
 * msg_nonce_test — the nonces of sealed messages are unique: across many
 * seals of one process, across threads, and across fork (a child, forked
 * after its parent has sealed, draws a prefix of its own, so neither
 * repeats the other's nonces).  And the seal's kept subkey changes
 * nothing on the wire: a sealed message is byte for byte what libsodium's
 * XChaCha20-Poly1305 makes of it, whichever keys and peers alternate.
 */
#include "msg_nonce.h"

#include <sys/wait.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "msg_keys.h"
#include "tap.h"

#define OFF_NONCE	18	/* in the clear header, cilknow-protocol(7) */
#define MANY		200000
#define PER_CHILD	20000
#define THREADS		4
#define PER_THREAD	20000

static uint8_t	all[MANY + 1 + 2 * PER_CHILD + THREADS * PER_THREAD]
		    [MSG_NONCE_LEN];
static size_t	nall;
/* MANY, PER_CHILD and PER_THREAD, or fewer under valgrind (tap_many) */
static size_t	many, per_child, per_thread;

static int
nonce_cmp(const void *a, const void *b)
{
	return memcmp(a, b, MSG_NONCE_LEN);
}

/* How many nonces of all[] appear more than once. */
static size_t
repeats(void)
{
	size_t i, n = 0;

	qsort(all, nall, MSG_NONCE_LEN, nonce_cmp);
	for (i = 1; i < nall; i++)
		n += memcmp(all[i - 1], all[i], MSG_NONCE_LEN) == 0;
	return n;
}

/* Nonces from the header of sealed messages, as a peer reads them. */
static void
test_seals(void)
{
	struct msg_keyring kr;
	struct msg_addr dst;
	struct msg_hdr h;
	uint8_t out[MSG_DGRAM_MAX];
	size_t len, hlen, i, bad = 0;

	memset(&kr, 0, sizeof(kr));
	memset(&dst, 0, sizeof(dst));
	dst.ma_family = 4;
	dst.ma_port = 7;
	if (msg_key_generate(&kr.kr_cluster.ks_key[0], MSG_KEY_CLUSTER,
	    NULL) == -1) {
		printf("Bail out! msg_key_generate\n");
		exit(1);
	}
	kr.kr_cluster.ks_n = 1;
	for (i = 0; i < many; i++) {
		if (msg_seal(&kr, MSG_SCHEME_CLUSTER, 1, &dst, 1, "x", 1, out,
		    sizeof(out), &len) == -1 ||
		    msg_hdr_decode(out, len, &h, &hlen) != MSG_DROP_NONE) {
			bad++;
			continue;
		}
		memcpy(all[nall++], h.mh_nonce, MSG_NONCE_LEN);
	}
	is_int(bad, 0, "%d messages sealed and their headers read", (int)many);
	ok(memcmp(all[0], all[many - 1], MSG_NONCE_PREFIX_LEN) == 0,
	    "one process: one prefix, the counter in the last 8 bytes");
	sodium_memzero(&kr, sizeof(kr));
}

/* Sealed by msg_seal, and again by libsodium from the same header. */
static void
test_wire(void)
{
	struct msg_keyring kr[2];
	struct msg_addr dst;
	struct msg_hdr h;
	uint8_t out[MSG_DGRAM_MAX], again[MSG_DGRAM_MAX], back[MSG_DGRAM_MAX];
	uint8_t pl[100];
	unsigned long long clen, mlen;
	size_t len, hlen, plen;
	int i, bad = 0, badopen = 0;

	memset(kr, 0, sizeof(kr));
	memset(&dst, 0, sizeof(dst));
	dst.ma_family = 4;
	for (i = 0; i < 2; i++) {
		if (msg_key_generate(&kr[i].kr_cluster.ks_key[0],
		    MSG_KEY_CLUSTER, NULL) == -1) {
			printf("Bail out! msg_key_generate\n");
			exit(1);
		}
		kr[i].kr_cluster.ks_n = 1;
	}
	for (i = 0; i < 1000; i++) {
		struct msg_keyring *k = &kr[i % 2];
		const uint8_t *key = k->kr_cluster.ks_key[0].k_aead;

		randombytes_buf(pl, sizeof(pl));
		if (msg_seal(k, MSG_SCHEME_CLUSTER, 1, &dst, 1, pl, i % 100,
		    out, sizeof(out), &len) == -1 ||
		    msg_hdr_decode(out, len, &h, &hlen) != MSG_DROP_NONE) {
			bad++;
			continue;
		}
		/* A peer's nonce, with a prefix of its own, every third. */
		if (i % 3 == 0) {
			randombytes_buf(out + OFF_NONCE, MSG_NONCE_LEN);
			memcpy(h.mh_nonce, out + OFF_NONCE, MSG_NONCE_LEN);
		}
		crypto_aead_xchacha20poly1305_ietf_encrypt(again, &clen, pl,
		    (unsigned long long)(i % 100), out, hlen, NULL, h.mh_nonce,
		    key);
		if (i % 3 != 0 && (hlen + clen != len ||
		    memcmp(again, out + hlen, clen) != 0))
			bad++;
		/* libsodium's message opens with msg_open. */
		memcpy(out + hlen, again, clen);
		if (msg_open(k, 0, out, hlen + clen, &h, back, sizeof(back),
		    &plen) != MSG_DROP_NONE || plen != (size_t)(i % 100) ||
		    memcmp(back, pl, plen) != 0 ||
		    crypto_aead_xchacha20poly1305_ietf_decrypt(back, &mlen,
		    NULL, out + hlen, clen, out, hlen, h.mh_nonce, key) != 0)
			badopen++;
	}
	is_int(bad, 0, "sealed as libsodium seals, two keys alternating");
	is_int(badopen, 0, "libsodium's seals open, ours and peers' nonces");
	sodium_memzero(kr, sizeof(kr));
}

/* A child that seals after fork, its nonces through a pipe. */
static void
test_fork(void)
{
	int p[2], st, k;
	pid_t pid;
	size_t got;
	uint8_t parent[MSG_NONCE_LEN];

	msg_nonce_next(parent);
	memcpy(all[nall++], parent, MSG_NONCE_LEN);
	for (k = 0; k < 2; k++) {
		if (pipe(p) == -1 || (pid = fork()) == -1) {
			printf("Bail out! pipe or fork\n");
			exit(1);
		}
		if (pid == 0) {
			uint8_t n[MSG_NONCE_LEN];
			int i;

			close(p[0]);
			for (i = 0; i < (int)per_child; i++) {
				msg_nonce_next(n);
				if (write(p[1], n, sizeof(n)) != sizeof(n))
					_exit(1);
			}
			_exit(0);
		}
		close(p[1]);
		got = 0;
		while (got < per_child && read(p[0], all[nall], MSG_NONCE_LEN) ==
		    MSG_NONCE_LEN) {
			got++;
			nall++;
		}
		close(p[0]);
		is_int(waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
		    WEXITSTATUS(st) : -1, 0, "child %d exited", k + 1);
		is_int(got, per_child, "child %d sent its nonces", k + 1);
		ok(memcmp(all[nall - 1], parent, MSG_NONCE_PREFIX_LEN) != 0,
		    "child %d drew a prefix of its own", k + 1);
	}
}

static void *
thread_main(void *arg)
{
	uint8_t (*mine)[MSG_NONCE_LEN] = arg;
	int i;

	for (i = 0; i < (int)per_thread; i++)
		msg_nonce_next(mine[i]);
	return NULL;
}

static void
test_threads(void)
{
	pthread_t t[THREADS];
	int i, bad = 0;

	for (i = 0; i < THREADS; i++)
		bad += pthread_create(&t[i], NULL, thread_main,
		    all[nall + (size_t)i * per_thread]) != 0;
	for (i = 0; i < THREADS; i++)
		bad += pthread_join(t[i], NULL) != 0;
	nall += THREADS * per_thread;
	is_int(bad, 0, "%d threads drew nonces at once", THREADS);
}

int
main(void)
{
	many = tap_many(MANY);
	per_child = tap_many(PER_CHILD);
	per_thread = tap_many(PER_THREAD);
	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	test_seals();
	test_wire();
	test_fork();
	test_threads();
	is_int(repeats(), 0, "no nonce twice among %zu (seals, forks, threads)",
	    nall);
	return tap_done();
}
