/*
 * msg_codec_test — sealing and opening one message under both schemes:
 * round trips and every header field, "@cluster" signatures, truncation
 * at every byte, every single bit flip, trailing bytes, oversize input,
 * wrong and unknown keys, bad scheme bytes, unknown users, path
 * traversal in the claimed name, forged signatures, key rotation (a
 * user's process reading cluster.pub again, and whether cluster.pub
 * holds the cluster key), and the address and name helpers.
 */
#include "msg_codec.h"

#include <sys/stat.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "mono.h"
#include "msg_keyring.h"
#include "tap.h"

/* Byte offsets of the clear header (cilknow-protocol(7)). */
#define OFF_SCHEME	3
#define OFF_HANDLER	4
#define OFF_KEYID	6
#define OFF_TIME	10
#define OFF_NONCE	18
#define OFF_FAMILY	42
#define OFF_ADDR	43
#define OFF_PORT	59
#define OFF_NAMELEN	61
#define OFF_NAME	62

static char		 tmpdir[] = "/tmp/cilknow-codec.XXXXXX";
static struct msg_key	 cluster_key, alice_key, bob_key;
/*
 * The users' keys of tmpdir, as a daemon holds them; every ring kr_new
 * makes shares them (rings are freed with free(), which leaves them).
 */
static struct msg_users	*users;
static struct msg_addr	 dst;
static uint8_t		 sealed[MSG_SEALED_MAX + 64];
static uint8_t		 work[MSG_SEALED_MAX + 64];
static uint8_t		 payload[MSG_PAYLOAD_MAX];
static uint8_t		 opened[MSG_PAYLOAD_MAX];

static struct msg_keyring *kr_new(const struct msg_key *,
		    const struct msg_key *);
static void	write_pub(const struct msg_key *, const struct msg_key *);
static enum msg_drop open_buf(struct msg_keyring *, const uint8_t *, size_t,
		    struct msg_hdr *, size_t *);
static enum msg_drop open_exact(struct msg_keyring *, const uint8_t *,
		    size_t);
static void	seal_ok(struct msg_keyring *, enum msg_scheme, uint16_t,
		    size_t, size_t *);
static void	show_reasons(const char *, const unsigned *);
static void	test_roundtrip(void);
static void	test_cluster_signer(void);
static void	test_truncation(void);
static void	test_bitflips(void);
static void	test_trailing_oversize(void);
static void	test_wrong_keys(void);
static void	test_bad_scheme(void);
static void	test_users(void);
static void	test_users_in_memory(void);
static void	test_own_user_only(void);
static void	test_rotation(void);
static void	test_seal_keyid(void);
static void	test_cluster_pub_again(void);
static void	test_pub_matches(void);
static void	test_seal_errors(void);
static void	test_addr(void);
static void	test_names(void);
static void	test_job(void);

/* A zeroed keyring holding cluster (may be NULL) and user (may be NULL). */
static struct msg_keyring *
kr_new(const struct msg_key *cl, const struct msg_key *user)
{
	struct msg_keyring *kr;

	if ((kr = calloc(1, sizeof(*kr))) == NULL) {
		printf("Bail out! calloc\n");
		exit(1);
	}
	if (cl != NULL) {
		kr->kr_cluster.ks_key[0] = *cl;
		kr->kr_cluster.ks_n = 1;
	}
	if (user != NULL) {
		kr->kr_user.ks_key[0] = *user;
		kr->kr_user.ks_n = 1;
	}
	strlcpy(kr->kr_users_dir, tmpdir, sizeof(kr->kr_users_dir));
	kr->kr_users = users;
	return kr;
}

/* Writes users/NAME.pub holding the public halves of cur (and prev). */
static void
write_pub(const struct msg_key *cur, const struct msg_key *prev)
{
	struct msg_keyset ks;
	char path[PATH_MAX], err[256];

	memset(&ks, 0, sizeof(ks));
	msg_key_public(cur, &ks.ks_key[0]);
	ks.ks_n = 1;
	if (prev != NULL)
		msg_key_public(prev, &ks.ks_key[ks.ks_n++]);
	snprintf(path, sizeof(path), "%s/%s.pub", tmpdir, cur->k_name);
	if (msg_keyset_save(&ks, path, 1, err, sizeof(err)) == -1) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
}

static enum msg_drop
open_buf(struct msg_keyring *kr, const uint8_t *buf, size_t len,
    struct msg_hdr *h, size_t *plen)
{
	struct msg_hdr dummy;
	size_t dummylen;

	return msg_open(kr, now_mono(), buf, len, h ? h : &dummy, opened,
	    sizeof(opened), plen ? plen : &dummylen);
}

/* Opens a private copy of exactly len bytes, so ASan sees any over-read. */
static enum msg_drop
open_exact(struct msg_keyring *kr, const uint8_t *src, size_t len)
{
	enum msg_drop d;
	uint8_t *copy;

	if ((copy = malloc(len ? len : 1)) == NULL) {
		printf("Bail out! malloc\n");
		exit(1);
	}
	if (len > 0)
		memcpy(copy, src, len);
	d = open_buf(kr, copy, len, NULL, NULL);
	free(copy);
	return d >= MSG_DROP_MAX ? MSG_DROP_NONE : d;
}

static void
seal_ok(struct msg_keyring *kr, enum msg_scheme s, uint16_t handler,
    size_t len, size_t *outlen)
{
	if (msg_seal(kr, s, handler, &dst, now_real_ms(), payload, len,
	    sealed, MSG_SEALED_MAX, outlen) == -1) {
		printf("Bail out! msg_seal: %s\n", strerror(errno));
		exit(1);
	}
}

static void
show_reasons(const char *what, const unsigned *count)
{
	int d;

	printf("# %s:", what);
	for (d = 0; d < MSG_DROP_MAX; d++)
		if (count[d] > 0)
			printf(" %s=%u", msg_drop_name(d), count[d]);
	printf("\n");
}

static void
test_roundtrip(void)
{
	static const size_t sizes[] = { 0, 1, 1000, MSG_PAYLOAD_MAX };
	struct msg_keyring *snd, *rcv;
	struct msg_hdr h;
	size_t i, len, plen;
	uint64_t t0, t;
	uint32_t keyid;
	int s, bad;

	snd = kr_new(&cluster_key, &alice_key);
	strlcpy(snd->kr_cluster_name, "node-a.example:7410",
	    sizeof(snd->kr_cluster_name));
	rcv = kr_new(&cluster_key, NULL);
	for (s = MSG_SCHEME_CLUSTER; s <= MSG_SCHEME_USER; s++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			randombytes_buf(payload, sizes[i]);
			t0 = now_real_ms();
			if (msg_seal(snd, s, 0x1234 + (uint16_t)i, &dst, t0,
			    payload, sizes[i], sealed, MSG_SEALED_MAX,
			    &len) == -1) {
				ok(0, "%s seal of %zu bytes: %s",
				    msg_scheme_name(s), sizes[i],
				    strerror(errno));
				continue;
			}
			is_int(len, OFF_NAME + (s == MSG_SCHEME_CLUSTER ?
			    strlen(snd->kr_cluster_name) + sizes[i] +
			    MSG_TAG_LEN : strlen("alice") + sizes[i] +
			    MSG_SIG_LEN), "%s: sealed length for %zu bytes",
			    msg_scheme_name(s), sizes[i]);
			plen = (size_t)-1;
			is_int(open_buf(rcv, sealed, len, &h, &plen),
			    MSG_DROP_NONE, "%s: %zu bytes open",
			    msg_scheme_name(s), sizes[i]);
			ok(plen == sizes[i] && (sizes[i] == 0 ||
			    memcmp(opened, payload, sizes[i]) == 0),
			    "%s: %zu bytes come out identical",
			    msg_scheme_name(s), sizes[i]);
			keyid = s == MSG_SCHEME_CLUSTER ? cluster_key.k_id :
			    alice_key.k_id;
			bad = 0;
			bad += h.mh_scheme != (enum msg_scheme)s;
			bad += h.mh_handler != 0x1234 + i;
			bad += h.mh_keyid != keyid;
			bad += h.mh_time_ms != t0;
			bad += memcmp(h.mh_nonce, sealed + OFF_NONCE,
			    MSG_NONCE_LEN) != 0;
			bad += !msg_addr_eq(&h.mh_dst, &dst);
			bad += strcmp(h.mh_name, s == MSG_SCHEME_CLUSTER ?
			    snd->kr_cluster_name : "alice") != 0;
			is_int(bad, 0, "%s: %zu bytes: every header field "
			    "decoded", msg_scheme_name(s), sizes[i]);
		}
	}

	/* The clear header as literal bytes. */
	memset(payload, 0, 4);
	t = 0x0102030405060708ULL;
	if (msg_seal(snd, MSG_SCHEME_CLUSTER, 0xbeef, &dst, t, payload, 4,
	    sealed, MSG_SEALED_MAX, &len) == 0) {
		bad = 0;
		bad += sealed[0] != MSG_MAGIC || sealed[1] != MSG_VERSION ||
		    sealed[2] != MSG_KIND_MESSAGE;
		bad += sealed[OFF_SCHEME] != MSG_SCHEME_CLUSTER;
		bad += sealed[OFF_HANDLER] != 0xbe ||
		    sealed[OFF_HANDLER + 1] != 0xef;
		bad += sealed[OFF_KEYID] != cluster_key.k_id >> 24 ||
		    sealed[OFF_KEYID + 3] != (cluster_key.k_id & 0xff);
		for (i = 0; i < 8; i++)
			bad += sealed[OFF_TIME + i] != i + 1;
		bad += sealed[OFF_FAMILY] != 4;
		bad += memcmp(sealed + OFF_ADDR, "\x7f\0\0\x01", 4) != 0;
		bad += sealed[OFF_PORT] != 7410 >> 8 ||
		    sealed[OFF_PORT + 1] != (7410 & 0xff);
		bad += sealed[OFF_NAMELEN] != strlen(snd->kr_cluster_name);
		bad += memcmp(sealed + OFF_NAME, snd->kr_cluster_name,
		    strlen(snd->kr_cluster_name)) != 0;
		is_int(bad, 0,
		    "clear header bytes at their documented offsets");
		is_int(msg_hdr_decode(sealed, len, &h, &plen), MSG_DROP_NONE,
		    "msg_hdr_decode alone accepts it");
		is_int(plen, OFF_NAME + strlen(snd->kr_cluster_name),
		    "and gives the header length");
	} else
		ok(0, "seal with a fixed time");

	/* A receiver that gives too little room for the payload. */
	seal_ok(snd, MSG_SCHEME_CLUSTER, 5, 100, &len);
	is_int(msg_open(rcv, now_mono(), sealed, len, &h, opened, 99, &plen),
	    MSG_DROP_BAD_LENGTH, "cluster: cap 99 for 100 bytes: bad length");
	seal_ok(snd, MSG_SCHEME_USER, 5, 100, &len);
	is_int(msg_open(rcv, now_mono(), sealed, len, &h, opened, 99, &plen),
	    MSG_DROP_BAD_LENGTH, "user: cap 99 for 100 bytes: bad length");

	/* Default cluster name. */
	snd->kr_cluster_name[0] = '\0';
	seal_ok(snd, MSG_SCHEME_CLUSTER, 5, 3, &len);
	ok(open_buf(rcv, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    strcmp(h.mh_name, MSG_CLUSTER_NAME) == 0,
	    "without kr_cluster_name the cluster scheme claims @cluster");
	free(snd);
	free(rcv);
}

static void
test_cluster_signer(void)
{
	struct msg_keyring *snd, *pubonly, *secret, *none;
	struct msg_hdr h;
	size_t len, plen;

	snd = kr_new(&cluster_key, NULL);
	pubonly = kr_new(NULL, NULL);
	msg_key_public(&cluster_key, &pubonly->kr_cluster_pub.ks_key[0]);
	pubonly->kr_cluster_pub.ks_n = 1;
	secret = kr_new(&cluster_key, NULL);
	none = kr_new(NULL, NULL);

	memcpy(payload, "status", 6);
	seal_ok(snd, MSG_SCHEME_USER, 9, 6, &len);
	is_int(open_buf(pubonly, sealed, len, &h, &plen), MSG_DROP_NONE,
	    "user scheme without a user key: opens with kr_cluster_pub");
	is_str(h.mh_name, MSG_CLUSTER_NAME, "and is signed as @cluster");
	is_int(h.mh_keyid, cluster_key.k_id, "with the cluster key's id");
	ok(plen == 6 && memcmp(opened, "status", 6) == 0, "payload intact");
	is_int(open_buf(secret, sealed, len, &h, &plen), MSG_DROP_NONE,
	    "and opens with the cluster secret key");
	is_int(open_buf(none, sealed, len, &h, &plen), MSG_DROP_UNKNOWN_KEY,
	    "but not without either");
	is_int(open_buf(pubonly, sealed, len - 1, &h, &plen),
	    MSG_DROP_BAD_SIG, "@cluster with a cut signature: bad signature");
	sealed[len - 1] ^= 0x01;
	is_int(open_buf(pubonly, sealed, len, &h, &plen), MSG_DROP_BAD_SIG,
	    "@cluster with a flipped signature bit: bad signature");
	/* The public ring cannot seal under the cluster scheme. */
	errno = 0;
	ok(msg_seal(pubonly, MSG_SCHEME_CLUSTER, 9, &dst, now_real_ms(),
	    payload, 6, sealed, MSG_SEALED_MAX, &len) == -1 &&
	    errno == ENOKEY, "no cluster secret: cluster seal fails ENOKEY");
	errno = 0;
	ok(msg_seal(none, MSG_SCHEME_USER, 9, &dst, now_real_ms(),
	    payload, 6, sealed, MSG_SEALED_MAX, &len) == -1 &&
	    errno == ENOKEY, "no keys at all: user seal fails ENOKEY");
	free(snd);
	free(pubonly);
	free(secret);
	free(none);
}

static void
test_truncation(void)
{
	struct msg_keyring *snd, *rcv;
	unsigned count[MSG_DROP_MAX];
	size_t len, n;
	int s, accepted;

	snd = kr_new(&cluster_key, &alice_key);
	rcv = kr_new(&cluster_key, NULL);
	for (s = MSG_SCHEME_CLUSTER; s <= MSG_SCHEME_USER; s++) {
		memcpy(payload, "truncate me", 11);
		seal_ok(snd, s, 42, 11, &len);
		memset(count, 0, sizeof(count));
		accepted = 0;
		for (n = 0; n < len; n++) {
			enum msg_drop d;

			d = open_exact(rcv, sealed, n);
			count[d]++;
			if (d == MSG_DROP_NONE)
				accepted++;
		}
		is_int(accepted, 0, "%s: truncation to each of 0..%zu bytes "
		    "is refused", msg_scheme_name(s), len - 1);
		ok(count[MSG_DROP_BAD_LENGTH] >= OFF_NAME, "%s: every cut "
		    "inside the fixed header is a bad length",
		    msg_scheme_name(s));
		show_reasons(msg_scheme_name(s), count);
		is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_NONE,
		    "%s: the whole message still opens", msg_scheme_name(s));
	}
	free(snd);
	free(rcv);
}

static void
test_bitflips(void)
{
	struct msg_keyring *snd, *rcv;
	unsigned count[MSG_DROP_MAX];
	size_t len, i;
	int s, bit, accepted;

	snd = kr_new(&cluster_key, &alice_key);
	rcv = kr_new(&cluster_key, NULL);
	for (s = MSG_SCHEME_CLUSTER; s <= MSG_SCHEME_USER; s++) {
		memcpy(payload, "flip my bits", 12);
		seal_ok(snd, s, 42, 12, &len);
		memset(count, 0, sizeof(count));
		accepted = 0;
		for (i = 0; i < len; i++)
			for (bit = 0; bit < 8; bit++) {
				enum msg_drop d;

				memcpy(work, sealed, len);
				work[i] ^= (uint8_t)(1u << bit);
				d = open_exact(rcv, work, len);
				count[d]++;
				if (d == MSG_DROP_NONE) {
					accepted++;
					printf("# %s: flip of byte %zu bit %d "
					    "accepted\n", msg_scheme_name(s),
					    i, bit);
				}
			}
		is_int(accepted, 0, "%s: all %zu single bit flips refused",
		    msg_scheme_name(s), len * 8);
		show_reasons(msg_scheme_name(s), count);
		ok(count[MSG_DROP_BAD_HEADER] > 0 &&
		    count[MSG_DROP_BAD_SCHEME] > 0 &&
		    count[s == MSG_SCHEME_CLUSTER ? MSG_DROP_BAD_MAC :
		    MSG_DROP_BAD_SIG] > 0, "%s: flips give bad header, bad "
		    "scheme and bad %s", msg_scheme_name(s),
		    s == MSG_SCHEME_CLUSTER ? "mac" : "signature");
		/* Flips of the key id name a key we do not have. */
		memcpy(work, sealed, len);
		work[OFF_KEYID + 3] ^= 0x80;
		is_int(open_buf(rcv, work, len, NULL, NULL),
		    MSG_DROP_UNKNOWN_KEY, "%s: flipped key id: unknown key",
		    msg_scheme_name(s));
	}
	free(snd);
	free(rcv);
}

static void
test_trailing_oversize(void)
{
	struct msg_keyring *snd, *rcv;
	struct msg_hdr h;
	size_t len, plen, n;
	int s;

	snd = kr_new(&cluster_key, &alice_key);
	rcv = kr_new(&cluster_key, NULL);
	for (s = MSG_SCHEME_CLUSTER; s <= MSG_SCHEME_USER; s++) {
		memcpy(payload, "trail", 5);
		seal_ok(snd, s, 42, 5, &len);
		for (n = 1; n <= 64; n *= 4) {
			memcpy(work, sealed, len);
			memset(work + len, 0, n);
			ok(open_exact(rcv, work, len + n) !=
			    MSG_DROP_NONE, "%s: %zu trailing zero bytes "
			    "refused", msg_scheme_name(s), n);
		}
		/* Trailing bytes that repeat the end of the message. */
		memcpy(work, sealed, len);
		memcpy(work + len, sealed + len - 16, 16);
		ok(open_buf(rcv, work, len + 16, NULL, NULL) != MSG_DROP_NONE,
		    "%s: 16 repeated trailing bytes refused",
		    msg_scheme_name(s));
	}

	/* Largest legal message, then one byte more. */
	randombytes_buf(payload, MSG_PAYLOAD_MAX);
	seal_ok(snd, MSG_SCHEME_USER, 42, MSG_PAYLOAD_MAX, &len);
	is_int(open_buf(rcv, sealed, len, &h, &plen), MSG_DROP_NONE,
	    "user message of %zu bytes opens", len);
	memcpy(work, sealed, len);
	memset(work + len, 0, MSG_SEALED_MAX + 1 - len);
	is_int(open_buf(rcv, work, MSG_SEALED_MAX + 1, &h, &plen),
	    MSG_DROP_BAD_LENGTH, "MSG_SEALED_MAX + 1 bytes: bad length");
	is_int(msg_hdr_decode(work, MSG_SEALED_MAX + 1, &h, &plen),
	    MSG_DROP_BAD_LENGTH, "msg_hdr_decode: oversize is bad length");
	is_int(open_buf(rcv, work, MSG_SEALED_MAX + 64, &h, &plen),
	    MSG_DROP_BAD_LENGTH, "MSG_SEALED_MAX + 64 bytes: bad length");
	is_int(open_buf(rcv, work, SIZE_MAX, &h, &plen), MSG_DROP_BAD_LENGTH,
	    "SIZE_MAX bytes: bad length (nothing read)");
	/* Padded to exactly MSG_SEALED_MAX: more payload than fits. */
	is_int(open_buf(rcv, work, MSG_SEALED_MAX, &h, &plen),
	    MSG_DROP_BAD_LENGTH, "padded to MSG_SEALED_MAX: bad length");
	is_int(open_exact(rcv, work, len + 1), MSG_DROP_BAD_LENGTH,
	    "largest user message plus one byte: bad length");
	free(snd);
	free(rcv);
}

static void
test_wrong_keys(void)
{
	struct msg_keyring *snd, *rcv;
	struct msg_key imposter, other;
	size_t len;

	snd = kr_new(&cluster_key, NULL);
	memcpy(payload, "secret", 6);
	seal_ok(snd, MSG_SCHEME_CLUSTER, 42, 6, &len);

	/* Same key id, different AEAD key. */
	if (msg_key_generate(&imposter, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	imposter.k_id = cluster_key.k_id;
	rcv = kr_new(&imposter, NULL);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_BAD_MAC,
	    "same key id, different cluster key: bad mac");
	free(rcv);

	/* Same AEAD key, different id: the id is what selects the key. */
	if (msg_key_generate(&other, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	rcv = kr_new(&other, NULL);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "unknown cluster key id: unknown key");
	free(rcv);
	rcv = kr_new(NULL, NULL);
	msg_key_public(&cluster_key, &rcv->kr_cluster_pub.ks_key[0]);
	rcv->kr_cluster_pub.ks_n = 1;
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "cluster scheme with only the public cluster key: unknown key");
	free(rcv);
	free(snd);
}

/*
 * The job scheme: the processes that hold one job's key open each
 * other's messages; a process with another key, another key id or
 * none opens nothing, and a job message passes for no other scheme.
 */
static void
test_job(void)
{
	struct msg_keyring *a, *b, *other, *oldid, *none, *cl;
	struct msg_hdr h;
	uint8_t key[32], key2[32];
	size_t len, plen, n, i;
	int accepted;

	randombytes_buf(key, sizeof(key));
	randombytes_buf(key2, sizeof(key2));
	a = kr_new(NULL, &alice_key);
	b = kr_new(NULL, NULL);
	other = kr_new(NULL, NULL);
	oldid = kr_new(NULL, NULL);
	none = kr_new(NULL, &alice_key);
	cl = kr_new(&cluster_key, NULL);
	ok(msg_keyring_set_job(a, 77, key, "w1") == 0 &&
	    msg_keyring_set_job(b, 77, key, "w2") == 0 &&
	    msg_keyring_set_job(other, 77, key2, "w3") == 0 &&
	    msg_keyring_set_job(oldid, 76, key, "w4") == 0,
	    "job keys set");
	ok(msg_keyring_set_job(b, 0, key, "w2") == -1 && errno == EINVAL,
	    "key id 0 is refused");
	ok(msg_keyring_set_job(b, 78, key, "w 2") == -1 &&
	    msg_keyring_set_job(b, 78, key, "") == -1, "a bad name is refused");
	memcpy(payload, "steal me", 8);
	seal_ok(a, MSG_SCHEME_JOB, 300, 8, &len);
	is_int(open_buf(b, sealed, len, &h, &plen), MSG_DROP_NONE,
	    "job: the same key opens it");
	ok(h.mh_scheme == MSG_SCHEME_JOB && strcmp(h.mh_name, "w1") == 0 &&
	    h.mh_keyid == 77 && h.mh_handler == 300 && plen == 8 &&
	    memcmp(opened, "steal me", 8) == 0,
	    "job: scheme, name, key id, handler and payload as sealed");
	ok(memmem(sealed, len, "steal me", 8) == NULL,
	    "job: the payload is not in clear on the wire");
	is_int(open_buf(other, sealed, len, NULL, NULL), MSG_DROP_BAD_MAC,
	    "job: another key under the same id: bad mac");
	is_int(open_buf(oldid, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "job: another key id: unknown key");
	is_int(open_buf(none, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "job: no job key: unknown key");
	is_int(open_buf(cl, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "job: the cluster key does not open it");
	memcpy(work, sealed, len);
	work[OFF_SCHEME] = MSG_SCHEME_CLUSTER;
	ok(open_buf(cl, work, len, NULL, NULL) != MSG_DROP_NONE,
	    "job message relabelled cluster: refused");
	memcpy(work, sealed, len);
	work[OFF_SCHEME] = MSG_SCHEME_USER;
	ok(open_buf(none, work, len, NULL, NULL) != MSG_DROP_NONE,
	    "job message relabelled user: refused");
	errno = 0;
	ok(msg_seal(none, MSG_SCHEME_JOB, 300, &dst, now_real_ms(), payload,
	    8, sealed, MSG_SEALED_MAX, &n) == -1 && errno == ENOKEY,
	    "job: no job key, nothing sealed (ENOKEY)");
	seal_ok(none, MSG_SCHEME_USER, 300, 8, &len);
	memcpy(work, sealed, len);
	work[OFF_SCHEME] = MSG_SCHEME_JOB;
	ok(open_buf(b, work, len, NULL, NULL) != MSG_DROP_NONE,
	    "a user's message relabelled job: refused");
	/* Every cut and every flipped bit of a job message. */
	seal_ok(a, MSG_SCHEME_JOB, 300, 8, &len);
	for (accepted = 0, n = 0; n < len; n++)
		accepted += open_exact(b, sealed, n) == MSG_DROP_NONE;
	is_int(accepted, 0, "job: truncation to each of 0..%zu bytes is "
	    "refused", len - 1);
	for (accepted = 0, i = 0; i < len * 8; i++) {
		memcpy(work, sealed, len);
		work[i / 8] ^= (uint8_t)(1u << (i % 8));
		accepted += open_exact(b, work, len) == MSG_DROP_NONE;
	}
	is_int(accepted, 0, "job: each of %zu flipped bits is refused",
	    len * 8);
	is_int(open_buf(b, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "job: the whole message still opens");
	/* A new key (a restarted clearinghouse's) replaces the old. */
	ok(msg_keyring_set_job(b, 90, key2, "w2") == 0 &&
	    open_buf(b, sealed, len, NULL, NULL) == MSG_DROP_UNKNOWN_KEY,
	    "job: after a new key, the old one opens nothing");
	free(a);
	free(b);
	free(other);
	free(oldid);
	free(none);
	free(cl);
	sodium_memzero(key, sizeof(key));
	sodium_memzero(key2, sizeof(key2));
}

static void
test_bad_scheme(void)
{
	/* 3 is munge (msg_munge_test), 4 the job's (test_job) */
	static const uint8_t bad[] = { 0, 5, 0x81, 0xff };
	struct msg_keyring *snd, *rcv;
	size_t len, i;

	snd = kr_new(&cluster_key, &alice_key);
	rcv = kr_new(&cluster_key, NULL);
	seal_ok(snd, MSG_SCHEME_CLUSTER, 42, 8, &len);
	for (i = 0; i < sizeof(bad); i++) {
		memcpy(work, sealed, len);
		work[OFF_SCHEME] = bad[i];
		is_int(open_buf(rcv, work, len, NULL, NULL),
		    MSG_DROP_BAD_SCHEME, "scheme byte %u: bad scheme", bad[i]);
	}
	/* A valid but different scheme: cluster relabelled as user. */
	memcpy(work, sealed, len);
	work[OFF_SCHEME] = MSG_SCHEME_USER;
	ok(open_buf(rcv, work, len, NULL, NULL) != MSG_DROP_NONE,
	    "cluster message relabelled user: refused");
	seal_ok(snd, MSG_SCHEME_USER, 42, 8, &len);
	memcpy(work, sealed, len);
	work[OFF_SCHEME] = MSG_SCHEME_CLUSTER;
	ok(open_buf(rcv, work, len, NULL, NULL) != MSG_DROP_NONE,
	    "user message relabelled cluster: refused");
	/* Magic, version and kind. */
	memcpy(work, sealed, len);
	work[0] = 0xc2;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "bad magic: bad header");
	memcpy(work, sealed, len);
	work[1] = 2;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "version 2: bad header");
	memcpy(work, sealed, len);
	work[2] = MSG_KIND_FRAGMENT;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "kind fragment given to msg_open: bad header");
	memcpy(work, sealed, len);
	work[OFF_FAMILY] = 5;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "address family 5: bad header");
	memcpy(work, sealed, len);
	work[OFF_NAMELEN] = 0;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "name length 0: bad header");
	memcpy(work, sealed, len);
	work[OFF_NAMELEN] = MSG_NAME_MAX + 1;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "name length %d: bad header", MSG_NAME_MAX + 1);
	memcpy(work, sealed, len);
	work[OFF_NAME + 1] = '\0';
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "NUL inside the name: bad header");
	free(snd);
	free(rcv);
}

static void
test_users(void)
{
	struct msg_keyring *snd, *rcv;
	struct msg_key carol, forged;
	struct msg_hdr h;
	size_t len, hl;
	uint8_t hand[OFF_NAME + MSG_NAME_MAX + MSG_SIG_LEN + 16];

	rcv = kr_new(&cluster_key, NULL);

	/* A user without a public key file. */
	if (msg_key_generate(&carol, MSG_KEY_USER, "carol") == -1)
		ok(0, "generate carol");
	snd = kr_new(&cluster_key, &carol);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "user without a key file: unknown key");
	free(snd);

	/* Alice's file exists, but the key id is not in it. */
	snd = kr_new(&cluster_key, &alice_key);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "alice's message opens");
	memcpy(work, sealed, len);
	work[OFF_KEYID] ^= 0xff;
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "alice with a key id not in her file: unknown key");

	/* Path traversal: the name bytes rewritten in place. */
	memcpy(work, sealed, len);
	memcpy(work + OFF_NAME, "../xy", 5);
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "user named ../xy: bad header");
	memcpy(work, sealed, len);
	memcpy(work + OFF_NAME, "a/../", 5);
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "user named a/../: bad header");
	memcpy(work, sealed, len);
	memcpy(work + OFF_NAME, "/etc/", 5);
	is_int(open_buf(rcv, work, len, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "user named /etc/: bad header");

	/* A header crafted by hand with name "../x" (4 bytes). */
	memcpy(hand, sealed, OFF_NAMELEN);
	hand[OFF_NAMELEN] = 4;
	memcpy(hand + OFF_NAME, "../x", 4);
	memset(hand + OFF_NAME + 4, 0, MSG_SIG_LEN + 4);
	hl = OFF_NAME + 4 + 4 + MSG_SIG_LEN;
	is_int(msg_hdr_decode(hand, hl, &h, &len), MSG_DROP_BAD_HEADER,
	    "hand-made header naming ../x: msg_hdr_decode says bad header");
	is_int(open_buf(rcv, hand, hl, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "and msg_open says bad header");
	hand[OFF_SCHEME] = MSG_SCHEME_CLUSTER;
	is_int(open_buf(rcv, hand, hl, NULL, NULL), MSG_DROP_BAD_HEADER,
	    "../x under the cluster scheme: bad header");
	ok(msg_keyring_user_pub(rcv, now_mono(), "../x", alice_key.k_id) ==
	    NULL, "msg_keyring_user_pub refuses ../x itself");
	ok(msg_keyring_user_pub(rcv, now_mono(), "alice", alice_key.k_id) !=
	    NULL, "and finds alice");

	/* Bob signs, claiming alice with alice's key id. */
	forged = bob_key;
	strlcpy(forged.k_name, "alice", sizeof(forged.k_name));
	forged.k_id = alice_key.k_id;
	free(snd);
	snd = kr_new(&cluster_key, &forged);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, &h, NULL), MSG_DROP_BAD_SIG,
	    "bob's signature claiming alice: bad signature");
	is_str(h.mh_name, "alice", "(the header did claim alice)");
	/* Bob claiming alice with his own key id. */
	forged.k_id = bob_key.k_id;
	free(snd);
	snd = kr_new(&cluster_key, &forged);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "bob's key id claiming alice: unknown key");
	/* Bob claiming @cluster with the cluster key's id. */
	forged = bob_key;
	forged.k_id = cluster_key.k_id;
	strlcpy(forged.k_name, MSG_CLUSTER_NAME, sizeof(forged.k_name));
	free(snd);
	snd = kr_new(NULL, &forged);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, &h, NULL), MSG_DROP_BAD_SIG,
	    "bob's signature claiming @cluster: bad signature");
	/* Bob, honestly. */
	free(snd);
	snd = kr_new(NULL, &bob_key);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	ok(open_buf(rcv, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    strcmp(h.mh_name, "bob") == 0, "bob as bob opens");
	free(snd);
	free(rcv);
}

/* Writes dir/FILE holding the public half of k, without fsync. */
static void
put_pub(const char *dir, const char *file, const struct msg_key *k)
{
	struct msg_keyset ks;
	char path[PATH_MAX], text[1024];
	FILE *fp;

	memset(&ks, 0, sizeof(ks));
	msg_key_public(k, &ks.ks_key[0]);
	ks.ks_n = 1;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (msg_keyset_format(&ks, text, sizeof(text)) == -1 ||
	    (fp = fopen(path, "w")) == NULL) {
		printf("Bail out! %s\n", path);
		exit(1);
	}
	fputs(text, fp);
	if (fclose(fp) == EOF) {
		printf("Bail out! %s\n", path);
		exit(1);
	}
}

/* Removes every file of dir, then dir. */
static void
rm_dir(const char *dir)
{
	char path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			(void)unlink(path);
		}
	closedir(d);
	if (rmdir(dir) == -1)
		printf("# %s: %s\n", dir, strerror(errno));
}

/*
 * A daemon (MSG_KR_USERS) holds the users' keys it loaded and opens no
 * file for a datagram: the folder removed after the load, alice still
 * verifies; a key file put there afterwards is not read for a name
 * claimed in a datagram, only by the next load (SIGHUP).  Bounded.
 */
static void
test_users_in_memory(void)
{
	char dir[sizeof("/dev/shm/cilknow-users.XXXXXX")], file[64], err[256];
	struct msg_keyring *rcv, *snd;
	struct msg_key carol, k;
	struct conf *cf;
	size_t len;
	int i;

	if (mkdtemp(strcpy(dir, "/tmp/cilknow-users.XXXXXX")) == NULL ||
	    (cf = conf_new()) == NULL ||
	    conf_set(cf, "user_keys", dir, err, sizeof(err)) == -1 ||
	    (rcv = calloc(1, sizeof(*rcv))) == NULL) {
		printf("Bail out! setup\n");
		exit(1);
	}
	put_pub(dir, "alice.pub", &alice_key);
	put_pub(dir, "Alice.pub", &alice_key);		/* not a user name */
	put_pub(dir, "mallory.pub", &alice_key);	/* not mallory's */
	ok(msg_keyring_load(rcv, cf, MSG_KR_USERS, NULL, err,
	    sizeof(err)) == 0 && rcv->kr_users != NULL &&
	    msg_users_count(rcv->kr_users) == 1,
	    "MSG_KR_USERS loads alice's key, refuses Alice.pub and a "
	    "mallory.pub holding alice's");
	rm_dir(dir);
	ok(access(dir, F_OK) == -1, "the folder is gone");
	snd = kr_new(&cluster_key, &alice_key);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "alice still verifies: from memory");
	free(snd);

	/* Carol's key appears after the load: not read for a datagram. */
	if (mkdir(dir, 0755) == -1 ||
	    msg_key_generate(&carol, MSG_KEY_USER, "carol") == -1) {
		printf("Bail out! carol\n");
		exit(1);
	}
	put_pub(dir, "carol.pub", &carol);
	snd = kr_new(&cluster_key, &carol);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "carol, whose file came after the load: unknown, the file "
	    "unread");
	ok(msg_keyring_user_pub(rcv, now_mono() + 3600, "carol",
	    carol.k_id) == NULL, "nor read later");
	/* A reload (what SIGHUP does) takes her. */
	msg_keyring_clear(rcv);
	ok(msg_keyring_load(rcv, cf, MSG_KR_USERS, NULL, err,
	    sizeof(err)) == 0 && msg_users_count(rcv->kr_users) == 1,
	    "loaded again: carol's key");
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "and now carol verifies");
	free(snd);

	/* At most MSG_USERS_MAX users; the rest not even opened. */
	rm_dir(dir);
	/* 4,000 files: in memory where we can (/tmp may be slow to create). */
	if (mkdtemp(strcpy(dir, "/dev/shm/cilknow-users.XXXXXX")) == NULL &&
	    mkdtemp(strcpy(dir, "/tmp/cilknow-users.XXXXXX")) == NULL) {
		printf("Bail out! mkdtemp\n");
		exit(1);
	}
	if (conf_set(cf, "user_keys", dir, err, sizeof(err)) == -1) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	for (i = 0; i < MSG_USERS_MAX + 10; i++) {
		snprintf(file, sizeof(file), "u%05d.pub", i);
		k = carol;
		snprintf(k.k_name, sizeof(k.k_name), "u%05d", i);
		put_pub(dir, file, &k);
	}
	msg_keyring_clear(rcv);
	ok(msg_keyring_load(rcv, cf, MSG_KR_USERS, NULL, err,
	    sizeof(err)) == 0 &&
	    msg_users_count(rcv->kr_users) == MSG_USERS_MAX,
	    "%d key files: %d loaded", MSG_USERS_MAX + 10, MSG_USERS_MAX);
	msg_keyring_clear(rcv);
	free(rcv);
	conf_free(cf);
	rm_dir(dir);
}

/*
 * A user's process (no MSG_KR_USERS) verifies its own user and
 * "@cluster" only: another user's key file is never opened, whatever
 * name a datagram claims.
 */
static void
test_own_user_only(void)
{
	struct msg_keyring *rcv, *snd;
	size_t len;

	rcv = kr_new(NULL, &alice_key);
	rcv->kr_users = NULL;
	snd = kr_new(&cluster_key, &alice_key);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "a user's process verifies its own user (alice.pub)");
	free(snd);
	snd = kr_new(&cluster_key, &bob_key);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_UNKNOWN_KEY,
	    "but not bob, though bob.pub is there: not opened");
	free(snd);
	snd = kr_new(&cluster_key, NULL);
	seal_ok(snd, MSG_SCHEME_USER, 42, 4, &len);
	rcv->kr_cluster_pub.ks_key[0] = cluster_key;
	rcv->kr_cluster_pub.ks_n = 1;
	is_int(open_buf(rcv, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "and @cluster");
	free(snd);
	free(rcv);
}

static void
test_rotation(void)
{
	struct msg_keyring *oldring, *newring, *both, *newonly;
	struct msg_key newkey, dave_new;
	struct msg_hdr h;
	size_t len;

	if (msg_key_generate(&newkey, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	oldring = kr_new(&cluster_key, NULL);
	newring = kr_new(&newkey, NULL);
	newonly = kr_new(&newkey, NULL);
	both = kr_new(&newkey, NULL);
	both->kr_cluster.ks_key[1] = cluster_key;
	both->kr_cluster.ks_n = 2;

	seal_ok(oldring, MSG_SCHEME_CLUSTER, 7, 10, &len);
	ok(open_buf(both, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == cluster_key.k_id,
	    "[new, old] opens a message sealed with old");
	is_int(open_buf(newonly, sealed, len, NULL, NULL),
	    MSG_DROP_UNKNOWN_KEY, "[new] alone does not");
	seal_ok(newring, MSG_SCHEME_CLUSTER, 7, 10, &len);
	ok(open_buf(both, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == newkey.k_id, "[new, old] opens one sealed with new");
	seal_ok(both, MSG_SCHEME_CLUSTER, 7, 10, &len);
	ok(open_buf(newonly, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == newkey.k_id, "[new, old] seals with new");
	is_int(open_buf(oldring, sealed, len, NULL, NULL),
	    MSG_DROP_UNKNOWN_KEY, "which [old] cannot open");
	/* "@cluster" signatures with the old key, verified by [new, old]. */
	oldring->kr_user.ks_n = 0;
	seal_ok(oldring, MSG_SCHEME_USER, 7, 10, &len);
	ok(open_buf(both, sealed, len, &h, NULL) == MSG_DROP_NONE,
	    "@cluster signed with old verifies against [new, old]");

	/* A user's file with [new, old]: both verify. */
	if (msg_key_generate(&dave_new, MSG_KEY_USER, "dave") == -1)
		ok(0, "generate");
	{
		struct msg_key dave_old;
		struct msg_keyring *s1, *s2;

		if (msg_key_generate(&dave_old, MSG_KEY_USER, "dave") == -1)
			ok(0, "generate");
		write_pub(&dave_new, &dave_old);
		/* A daemon sees a new file only when it loads again. */
		msg_users_free(users);
		users = msg_users_load(tmpdir);
		both->kr_users = users;
		s1 = kr_new(NULL, &dave_old);
		s2 = kr_new(NULL, &dave_new);
		seal_ok(s1, MSG_SCHEME_USER, 7, 10, &len);
		is_int(open_buf(both, sealed, len, NULL, NULL), MSG_DROP_NONE,
		    "user file [new, old]: the old key verifies");
		seal_ok(s2, MSG_SCHEME_USER, 7, 10, &len);
		is_int(open_buf(both, sealed, len, NULL, NULL), MSG_DROP_NONE,
		    "user file [new, old]: the new key verifies");
		free(s1);
		free(s2);
	}
	free(oldring);
	free(newring);
	free(newonly);
	free(both);
}

/* msg_seal_keyid: a reply goes out under the key of its request. */
static void
test_seal_keyid(void)
{
	struct msg_keyring *both, *oldonly;
	struct msg_key newkey, other;
	struct msg_hdr h;
	size_t len;

	if (msg_key_generate(&newkey, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&other, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	both = kr_new(&newkey, &alice_key);
	both->kr_cluster.ks_key[1] = cluster_key;
	both->kr_cluster.ks_n = 2;
	oldonly = kr_new(&cluster_key, NULL);
	ok(msg_seal_keyid(both, MSG_SCHEME_CLUSTER, 3, cluster_key.k_id, &dst,
	    now_real_ms(), "r", 1, sealed, MSG_SEALED_MAX, &len) == 0 &&
	    open_buf(oldonly, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == cluster_key.k_id,
	    "keyid of the previous key: sealed with it, [old] opens it");
	ok(msg_seal_keyid(both, MSG_SCHEME_CLUSTER, 3, 0, &dst,
	    now_real_ms(), "r", 1, sealed, MSG_SEALED_MAX, &len) == 0 &&
	    open_buf(both, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == newkey.k_id, "keyid 0: the current key");
	ok(msg_seal_keyid(both, MSG_SCHEME_CLUSTER, 3, other.k_id, &dst,
	    now_real_ms(), "r", 1, sealed, MSG_SEALED_MAX, &len) == 0 &&
	    open_buf(both, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == newkey.k_id,
	    "a keyid the ring lacks: the current key");
	ok(msg_seal_keyid(both, MSG_SCHEME_USER, 3, cluster_key.k_id, &dst,
	    now_real_ms(), "r", 1, sealed, MSG_SEALED_MAX, &len) == 0 &&
	    open_buf(both, sealed, len, &h, NULL) == MSG_DROP_NONE &&
	    h.mh_keyid == alice_key.k_id && strcmp(h.mh_name, "alice") == 0,
	    "user scheme: the keyid is ignored, alice signs");
	free(both);
	free(oldonly);
}

/* cluster.pub of the public halves of cur (and prev), or of text. */
static void
write_cluster_pub(const char *path, const struct msg_key *cur,
    const struct msg_key *prev, const char *text)
{
	struct msg_keyset ks;
	char err[256];
	FILE *f;

	if (text != NULL) {
		if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
		    fclose(f) == EOF) {
			printf("Bail out! %s: cannot write\n", path);
			exit(1);
		}
		return;
	}
	memset(&ks, 0, sizeof(ks));
	msg_key_public(cur, &ks.ks_key[ks.ks_n++]);
	if (prev != NULL)
		msg_key_public(prev, &ks.ks_key[ks.ks_n++]);
	if (msg_keyset_save(&ks, path, 1, err, sizeof(err)) == -1) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
}

/*
 * A job manager's ring (cluster.pub only) follows a rotation: a key id
 * it lacks reads cluster.pub again, at most every MSG_PUBCACHE_TTL; a
 * broken file keeps the keys it had.
 */
static void
test_cluster_pub_again(void)
{
	struct msg_keyring *jm, *daemon_new;
	struct msg_key newkey, newer;
	struct conf *cf;
	char path[PATH_MAX], err[256];
	double t = 1000.0;
	size_t len;

	if (msg_key_generate(&newkey, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&newer, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	snprintf(path, sizeof(path), "%s/cluster.pub", tmpdir);
	write_cluster_pub(path, &cluster_key, NULL, NULL);
	if ((jm = calloc(1, sizeof(*jm))) == NULL ||
	    (cf = conf_new()) == NULL ||
	    conf_set(cf, "cluster_pub", path, err, sizeof(err)) == -1 ||
	    conf_set(cf, "user_keys", tmpdir, err, sizeof(err)) == -1) {
		printf("Bail out! keyring\n");
		exit(1);
	}
	ok(msg_keyring_load(jm, cf, 0, NULL, err, sizeof(err)) == 0 &&
	    jm->kr_cluster_pub.ks_n == 1 &&
	    strcmp(jm->kr_cluster_pub_path, path) == 0,
	    "msg_keyring_load remembers where cluster_pub is");
	conf_free(cf);

	/* Rotated: the daemons sign with newkey, cluster.pub has both. */
	write_cluster_pub(path, &newkey, &cluster_key, NULL);
	daemon_new = kr_new(&newkey, NULL);
	daemon_new->kr_cluster.ks_key[1] = cluster_key;
	daemon_new->kr_cluster.ks_n = 2;
	seal_ok(daemon_new, MSG_SCHEME_USER, 7, 10, &len);
	is_int(open_buf(jm, sealed, len, NULL, NULL), MSG_DROP_NONE,
	    "@cluster signed with the new key: cluster.pub is read again");
	ok(jm->kr_cluster_pub.ks_n == 2 &&
	    jm->kr_cluster_pub.ks_key[0].k_id == newkey.k_id,
	    "and the ring holds [new, old]");
	t = jm->kr_cluster_pub_read;
	ok(msg_keyring_user_pub(jm, t, MSG_CLUSTER_NAME, cluster_key.k_id) !=
	    NULL, "the old key still verifies");

	/* Rotated again at once: not read before MSG_PUBCACHE_TTL. */
	write_cluster_pub(path, &newer, &newkey, NULL);
	ok(msg_keyring_user_pub(jm, t + MSG_PUBCACHE_TTL - 0.5,
	    MSG_CLUSTER_NAME, newer.k_id) == NULL,
	    "an unknown id within %.0f s of the last read: not read again",
	    MSG_PUBCACHE_TTL);
	ok(msg_keyring_user_pub(jm, t + MSG_PUBCACHE_TTL + 0.5,
	    MSG_CLUSTER_NAME, newer.k_id) != NULL,
	    "after it: read again, the newer key verifies");
	t += MSG_PUBCACHE_TTL + 0.5;

	/* A broken or missing file keeps what the ring has. */
	write_cluster_pub(path, NULL, NULL, "cluster-pub zz junk\n");
	ok(msg_keyring_user_pub(jm, t + 2 * MSG_PUBCACHE_TTL,
	    MSG_CLUSTER_NAME, 0x12345678) == NULL &&
	    msg_keyring_user_pub(jm, t + 2 * MSG_PUBCACHE_TTL,
	    MSG_CLUSTER_NAME, newer.k_id) != NULL,
	    "a broken cluster.pub: the keys read before stay");
	unlink(path);
	ok(msg_keyring_user_pub(jm, t + 4 * MSG_PUBCACHE_TTL,
	    MSG_CLUSTER_NAME, 0x12345678) == NULL &&
	    msg_keyring_user_pub(jm, t + 4 * MSG_PUBCACHE_TTL,
	    MSG_CLUSTER_NAME, newer.k_id) != NULL,
	    "a missing cluster.pub: likewise");
	/* Without a path (rings made by hand) nothing is read. */
	write_cluster_pub(path, &newer, &newkey, NULL);
	jm->kr_cluster_pub_path[0] = '\0';
	jm->kr_cluster_pub.ks_n = 0;
	ok(msg_keyring_user_pub(jm, t + 8 * MSG_PUBCACHE_TTL,
	    MSG_CLUSTER_NAME, newer.k_id) == NULL,
	    "no kr_cluster_pub_path: no file is read");
	msg_keyring_clear(jm);
	free(jm);
	free(daemon_new);
}

/* What -n checks: cluster.pub's current key is the cluster key's. */
static void
test_pub_matches(void)
{
	struct msg_keyring *kr;
	struct msg_key newkey;

	if (msg_key_generate(&newkey, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	kr = kr_new(&newkey, NULL);
	kr->kr_cluster.ks_key[1] = cluster_key;
	kr->kr_cluster.ks_n = 2;
	ok(msg_keyring_pub_matches(kr), "no cluster.pub: nothing to differ");
	msg_key_public(&newkey, &kr->kr_cluster_pub.ks_key[0]);
	msg_key_public(&cluster_key, &kr->kr_cluster_pub.ks_key[1]);
	kr->kr_cluster_pub.ks_n = 2;
	ok(msg_keyring_pub_matches(kr), "[new, old] and [new, old] match");
	kr->kr_cluster_pub.ks_n = 1;
	ok(msg_keyring_pub_matches(kr), "[new] matches [new, old]");
	msg_key_public(&cluster_key, &kr->kr_cluster_pub.ks_key[0]);
	ok(!msg_keyring_pub_matches(kr),
	    "cluster.pub [old] with cluster.key [new, old] does not");
	msg_key_public(&newkey, &kr->kr_cluster_pub.ks_key[0]);
	kr->kr_cluster.ks_key[0] = cluster_key;
	kr->kr_cluster.ks_n = 1;
	ok(!msg_keyring_pub_matches(kr),
	    "cluster.pub [new] with cluster.key [old] does not");
	kr->kr_cluster.ks_n = 0;
	ok(msg_keyring_pub_matches(kr), "no cluster key: nothing to differ");
	free(kr);
}

static void
test_seal_errors(void)
{
	struct msg_keyring *kr;
	size_t len;

	kr = kr_new(&cluster_key, &alice_key);
	errno = 0;
	ok(msg_seal(kr, MSG_SCHEME_CLUSTER, 1, &dst, 1, payload,
	    MSG_PAYLOAD_MAX + 1, sealed, sizeof(sealed), &len) == -1 &&
	    errno == EMSGSIZE, "payload of MSG_PAYLOAD_MAX + 1: EMSGSIZE");
	errno = 0;
	ok(msg_seal(kr, MSG_SCHEME_CLUSTER, 1, &dst, 1, payload, 100,
	    sealed, OFF_NAME + 8 + 100 + MSG_SIG_LEN - 1, &len) == -1 &&
	    errno == EMSGSIZE, "output one byte short of the bound: EMSGSIZE");
	errno = 0;
	ok(msg_seal(kr, MSG_SCHEME_USER, 1, &dst, 1, payload, 100,
	    sealed, 10, &len) == -1 && errno == EMSGSIZE,
	    "output smaller than the header: EMSGSIZE");
	errno = 0;
	ok(msg_seal(kr, MSG_SCHEME_UNDEF, 1, &dst, 1, payload, 1, sealed,
	    sizeof(sealed), &len) == -1 && errno == ENOKEY,
	    "scheme undef: ENOKEY");
	strlcpy(kr->kr_cluster_name, "bad name", sizeof(kr->kr_cluster_name));
	errno = 0;
	ok(msg_seal(kr, MSG_SCHEME_CLUSTER, 1, &dst, 1, payload, 1, sealed,
	    sizeof(sealed), &len) == -1 && errno == EINVAL,
	    "cluster name with a space: EINVAL");
	free(kr);
}

static void
test_addr(void)
{
	static const char *const bad[] = { "x:0", "x:70000", "x:",
	    "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:5x",
	    "127.0.0.1:-1", "[::1", "[::1]x", "[::1]:", "", ":5", "[]:5" };
	static const char *const rt[] = { "127.0.0.1:7410", "10.1.2.3:1",
	    "255.255.255.255:65535", "[::1]:5", "[fe80::1:2]:7410" };
	struct msg_addr a, b;
	struct sockaddr_storage ss;
	char text[64];
	size_t i;

	ok(msg_addr_parse(&a, "127.0.0.1:7410", 1) == 0 &&
	    a.ma_family == 4 && memcmp(a.ma_addr, "\x7f\0\0\x01", 4) == 0 &&
	    a.ma_port == 7410, "127.0.0.1:7410");
	ok(msg_addr_parse(&a, "127.0.0.2", 7410) == 0 && a.ma_family == 4 &&
	    memcmp(a.ma_addr, "\x7f\0\0\x02", 4) == 0 && a.ma_port == 7410,
	    "127.0.0.2 takes the default port");
	ok(msg_addr_parse(&a, "[::1]:5", 7410) == 0 && a.ma_family == 6 &&
	    memcmp(a.ma_addr, &in6addr_loopback, 16) == 0 && a.ma_port == 5,
	    "[::1]:5");
	ok(msg_addr_parse(&a, "[::1]", 7410) == 0 && a.ma_family == 6 &&
	    a.ma_port == 7410, "[::1] takes the default port");
	ok(msg_addr_parse(&a, "::1", 7410) == 0 && a.ma_family == 6 &&
	    a.ma_port == 7410, "bare ::1 takes the default port");
	ok(msg_addr_parse(&a, "127.0.0.1:65535", 1) == 0 &&
	    a.ma_port == 65535, "port 65535");
	/* A name or an address; loopback or not (for the start-up warning). */
	ok(!msg_addr_named("127.0.0.1:7410") && !msg_addr_named("[::1]:5") &&
	    !msg_addr_named("::1") && !msg_addr_named("0.0.0.0"),
	    "numeric addresses are not names");
	ok(msg_addr_named("localhost") && msg_addr_named("localhost:7410") &&
	    msg_addr_named("falcon.example.org:7410"), "host names are names");
	ok(msg_addr_parse(&a, "127.0.1.1", 1) == 0 && msg_addr_loopback(&a),
	    "127.0.1.1 is loopback");
	ok(msg_addr_parse(&a, "[::1]", 1) == 0 && msg_addr_loopback(&a),
	    "::1 is loopback");
	ok(msg_addr_parse(&a, "[::ffff:127.0.0.9]", 1) == 0 &&
	    msg_addr_loopback(&a), "::ffff:127.0.0.9 is loopback");
	ok(msg_addr_parse(&a, "10.0.0.1", 1) == 0 && !msg_addr_loopback(&a) &&
	    msg_addr_parse(&a, "0.0.0.0", 1) == 0 && !msg_addr_loopback(&a) &&
	    msg_addr_parse(&a, "[::2]", 1) == 0 && !msg_addr_loopback(&a),
	    "10.0.0.1, 0.0.0.0 and ::2 are not");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ok(msg_addr_parse(&a, bad[i], 7410) == -1 && errno == EINVAL,
		    "\"%s\" refused with EINVAL", bad[i]);
	}
	{
		char longname[300];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		errno = 0;
		ok(msg_addr_parse(&a, longname, 1) == -1 &&
		    errno == ENAMETOOLONG, "299-byte host: ENAMETOOLONG");
	}
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		memset(text, 0, sizeof(text));
		if (msg_addr_parse(&a, rt[i], 1) == -1) {
			ok(0, "parse %s", rt[i]);
			continue;
		}
		msg_addr_text(&a, text, sizeof(text));
		is_str(text, rt[i], "msg_addr_text(parse(\"%s\"))", rt[i]);
		ok(msg_addr_parse(&b, text, 1) == 0 && msg_addr_eq(&a, &b),
		    "parse(text(%s)) is the same address", rt[i]);
		ok(msg_addr_to_sockaddr(&a, &ss) > 0 &&
		    msg_addr_from_sockaddr(&b, (struct sockaddr *)&ss,
		    sizeof(ss)) == 0 && msg_addr_eq(&a, &b),
		    "%s through a sockaddr and back", rt[i]);
	}
	memset(&a, 0, sizeof(a));
	msg_addr_text(&a, text, sizeof(text));
	is_str(text, "(invalid address)", "family 0 prints as invalid");
	is_int(msg_addr_to_sockaddr(&a, &ss), 0, "family 0 has no sockaddr");
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	errno = 0;
	ok(msg_addr_from_sockaddr(&a, (struct sockaddr *)&ss, sizeof(ss)) ==
	    -1 && errno == EAFNOSUPPORT, "AF_UNIX sockaddr: EAFNOSUPPORT");
	ss.ss_family = AF_INET;
	ok(msg_addr_from_sockaddr(&a, (struct sockaddr *)&ss, 4) == -1,
	    "AF_INET sockaddr of 4 bytes refused");
	ok(msg_addr_parse(&a, "127.0.0.1:1", 1) == 0 &&
	    msg_addr_parse(&b, "127.0.0.1:2", 1) == 0 && !msg_addr_eq(&a, &b),
	    "different ports are different addresses");
}

static void
test_names(void)
{
	static const struct {
		int		 scheme;
		const char	*name;
		int		 want;
	} cases[] = {
		{ MSG_SCHEME_CLUSTER, "node-1", 1 },
		{ MSG_SCHEME_CLUSTER, "@cluster", 1 },
		{ MSG_SCHEME_CLUSTER, "Broker.a:7410_x", 1 },
		{ MSG_SCHEME_CLUSTER, "", 0 },
		{ MSG_SCHEME_CLUSTER, "a b", 0 },
		{ MSG_SCHEME_CLUSTER, "a/b", 0 },
		{ MSG_SCHEME_CLUSTER, "../x", 0 },
		{ MSG_SCHEME_CLUSTER, "tab\there", 0 },
		{ MSG_SCHEME_CLUSTER, "\xc3\xa9", 0 },
		{ MSG_SCHEME_CLUSTER, "abcdefghijklmnopqrstuvwxyz012345", 1 },
		{ MSG_SCHEME_CLUSTER, "abcdefghijklmnopqrstuvwxyz0123456", 0 },
		{ MSG_SCHEME_USER, "alice", 1 },
		{ MSG_SCHEME_USER, "_svc", 1 },
		{ MSG_SCHEME_USER, "a1.b-c_d", 1 },
		{ MSG_SCHEME_USER, "@cluster", 1 },
		{ MSG_SCHEME_USER, "@other", 0 },
		{ MSG_SCHEME_USER, "Alice", 0 },
		{ MSG_SCHEME_USER, "1abc", 0 },
		{ MSG_SCHEME_USER, ".hidden", 0 },
		{ MSG_SCHEME_USER, "-x", 0 },
		{ MSG_SCHEME_USER, "../x", 0 },
		{ MSG_SCHEME_USER, "a/b", 0 },
		{ MSG_SCHEME_USER, "node:1", 0 },
		{ MSG_SCHEME_USER, "", 0 },
		{ MSG_SCHEME_USER, "abcdefghijklmnopqrstuvwxyz012345", 1 },
		{ MSG_SCHEME_USER, "abcdefghijklmnopqrstuvwxyz0123456", 0 },
		{ MSG_SCHEME_UNDEF, "alice", 0 },
		{ MSG_SCHEME_MAX, "alice", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(msg_name_ok(cases[i].scheme, cases[i].name),
		    cases[i].want, "msg_name_ok(%s, \"%s\")",
		    msg_scheme_name(cases[i].scheme), cases[i].name);
	is_int(msg_scheme_from_name("cluster"), MSG_SCHEME_CLUSTER,
	    "scheme from name cluster");
	is_int(msg_scheme_from_name("user"), MSG_SCHEME_USER,
	    "scheme from name user");
	is_int(msg_scheme_from_name("undefined"), MSG_SCHEME_UNDEF,
	    "scheme from name undefined is undef");
	is_int(msg_scheme_from_name("USER"), MSG_SCHEME_UNDEF,
	    "scheme names are case-sensitive");
	is_str(msg_drop_name(MSG_DROP_BAD_MAC), "bad_mac", "drop name");
	is_str(msg_drop_name(MSG_DROP_MAX), "invalid", "drop name of MAX");
	{
		int d, named = 1;

		for (d = 0; d < MSG_DROP_MAX; d++)
			if (msg_drop_name(d) == NULL)
				named = 0;
		ok(named, "every drop reason has a name");
	}
}

int
main(void)
{
	char path[PATH_MAX];

	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	if (msg_key_generate(&cluster_key, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&alice_key, MSG_KEY_USER, "alice") == -1 ||
	    msg_key_generate(&bob_key, MSG_KEY_USER, "bob") == -1) {
		printf("Bail out! msg_key_generate\n");
		return 1;
	}
	write_pub(&alice_key, NULL);
	write_pub(&bob_key, NULL);
	if ((users = msg_users_load(tmpdir)) == NULL) {
		printf("Bail out! msg_users_load\n");
		return 1;
	}
	if (msg_addr_parse(&dst, "127.0.0.1:7410", 1) == -1) {
		printf("Bail out! msg_addr_parse\n");
		return 1;
	}

	test_roundtrip();
	test_cluster_signer();
	test_truncation();
	test_bitflips();
	test_trailing_oversize();
	test_wrong_keys();
	test_bad_scheme();
	test_users();
	test_users_in_memory();
	test_own_user_only();
	test_rotation();
	test_seal_keyid();
	test_cluster_pub_again();
	test_pub_matches();
	test_seal_errors();
	test_addr();
	test_names();
	test_job();

	snprintf(path, sizeof(path), "%s/alice.pub", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bob.pub", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/dave.pub", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cluster.pub", tmpdir);
	unlink(path);
	ok(rmdir(tmpdir) == 0, "temporary users folder removed");
	msg_users_free(users);
	sodium_memzero(&cluster_key, sizeof(cluster_key));
	return tap_done();
}
