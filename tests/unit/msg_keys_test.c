/*
 * msg_keys_test — key generation and key files: save/load round trips
 * for the four types, stable ids and fingerprints shared by a secret key
 * and its public half, file permissions, refusing to overwrite, and a
 * refusal with a message for every kind of bad line.
 */
#include "msg_keys.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "tap.h"

static char	tmpdir[] = "/tmp/cilknow-keys.XXXXXX";
static char	path[PATH_MAX], err[512];

static const char *tpath(const char *);
static void	write_file(const char *, mode_t, const char *);
static int	key_eq(const struct msg_key *, const struct msg_key *);
static int	load_refused(const char *, enum msg_key_type, const char *);
static void	format_one(const struct msg_key *, char *, size_t);
static void	test_generate(void);
static void	test_roundtrip(void);
static void	test_modes(void);
static void	test_overwrite(void);
static void	test_counts_and_mixing(void);
static void	test_bad_lines(void);
static void	test_id_spelling(void);
static void	test_comments(void);
static void	test_files(void);
static void	test_user_names(void);
static const char *vis(const char *);

static const char *
tpath(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

static void
write_file(const char *p, mode_t mode, const char *text)
{
	FILE *fp;

	unlink(p);
	if ((fp = fopen(p, "w")) == NULL || fputs(text, fp) == EOF ||
	    fclose(fp) == EOF || chmod(p, mode) == -1) {
		printf("Bail out! %s: %s\n", p, strerror(errno));
		exit(1);
	}
}

static int
key_eq(const struct msg_key *a, const struct msg_key *b)
{
	return a->k_type == b->k_type && a->k_id == b->k_id &&
	    strcmp(a->k_name, b->k_name) == 0 &&
	    memcmp(a->k_aead, b->k_aead, sizeof(a->k_aead)) == 0 &&
	    memcmp(a->k_sk, b->k_sk, sizeof(a->k_sk)) == 0 &&
	    memcmp(a->k_pk, b->k_pk, sizeof(a->k_pk)) == 0 &&
	    memcmp(a->k_fpr, b->k_fpr, sizeof(a->k_fpr)) == 0;
}

/* 1 if loading p is refused, with a message holding want (if not NULL). */
static int
load_refused(const char *p, enum msg_key_type type, const char *want)
{
	struct msg_keyset ks;
	int rc;

	err[0] = '\0';
	memset(&ks, 0xa5, sizeof(ks));
	rc = msg_keyset_load(&ks, p, type, err, sizeof(err));
	if (rc != -1) {
		printf("#   loaded %d key(s)\n", ks.ks_n);
		return 0;
	}
	if (err[0] == '\0' || (want != NULL && strstr(err, want) == NULL)) {
		printf("#   message \"%s\" lacks \"%s\"\n", err,
		    want ? want : "");
		return 0;
	}
	if (ks.ks_n != 0) {
		printf("#   ks_n %d after a refusal\n", ks.ks_n);
		return 0;
	}
	return 1;
}

/* The text of a one-key file holding k. */
static void
format_one(const struct msg_key *k, char *buf, size_t bufsz)
{
	struct msg_keyset ks;

	memset(&ks, 0, sizeof(ks));
	ks.ks_key[0] = *k;
	ks.ks_n = 1;
	if (msg_keyset_format(&ks, buf, bufsz) == -1) {
		printf("Bail out! msg_keyset_format\n");
		exit(1);
	}
}

static void
test_generate(void)
{
	struct msg_key k, pub;
	char fpr[64];
	size_t i;
	int good;

	errno = 0;
	ok(msg_key_generate(&k, MSG_KEY_CLUSTER_PUB, NULL) == -1 &&
	    errno == EINVAL, "cannot generate a public key: EINVAL");
	errno = 0;
	ok(msg_key_generate(&k, MSG_KEY_UNDEF, NULL) == -1 && errno == EINVAL,
	    "cannot generate type undef: EINVAL");
	errno = 0;
	ok(msg_key_generate(&k, MSG_KEY_USER, NULL) == -1 && errno == EINVAL,
	    "user key without a name: EINVAL");
	errno = 0;
	ok(msg_key_generate(&k, MSG_KEY_USER, "Bad") == -1 && errno == EINVAL,
	    "user key with a bad name: EINVAL");

	ok(msg_key_generate(&k, MSG_KEY_USER, "alice") == 0 &&
	    k.k_type == MSG_KEY_USER && strcmp(k.k_name, "alice") == 0,
	    "user key generated");
	msg_key_public(&k, &pub);
	ok(pub.k_type == MSG_KEY_USER_PUB && pub.k_id == k.k_id &&
	    strcmp(pub.k_name, "alice") == 0 &&
	    memcmp(pub.k_pk, k.k_pk, sizeof(k.k_pk)) == 0 &&
	    memcmp(pub.k_fpr, k.k_fpr, sizeof(k.k_fpr)) == 0,
	    "public half: same id, name, pk and fingerprint");
	good = 1;
	for (i = 0; i < sizeof(pub.k_sk); i++)
		if (pub.k_sk[i] != 0)
			good = 0;
	for (i = 0; i < sizeof(pub.k_aead); i++)
		if (pub.k_aead[i] != 0)
			good = 0;
	ok(good, "public half carries no secret material");
	ok(k.k_id == ((uint32_t)k.k_fpr[0] << 24 | (uint32_t)k.k_fpr[1] << 16 |
	    (uint32_t)k.k_fpr[2] << 8 | k.k_fpr[3]),
	    "id is the first four fingerprint bytes");
	msg_key_fpr_text(&k, fpr, sizeof(fpr));
	good = strlen(fpr) == 39;
	for (i = 0; good && i < 39; i++)
		if ((i % 5 == 4) != (fpr[i] == ':'))
			good = 0;
	ok(good, "fingerprint text is 8 groups of 4 hex digits: %s", fpr);
	{
		char want[8];

		snprintf(want, sizeof(want), "%02x%02x", k.k_fpr[0],
		    k.k_fpr[1]);
		ok(strncmp(fpr, want, 4) == 0, "and starts with the bytes");
	}
	msg_key_fpr_text(&k, fpr, 10);
	ok(strlen(fpr) < 10, "a short buffer gets a cut fingerprint");
	ok(msg_key_generate(&k, MSG_KEY_CLUSTER, NULL) == 0 &&
	    k.k_type == MSG_KEY_CLUSTER && k.k_name[0] == '\0',
	    "cluster key generated");
	msg_key_public(&k, &pub);
	ok(pub.k_type == MSG_KEY_CLUSTER_PUB && pub.k_id == k.k_id,
	    "cluster public half");
	is_str(msg_key_type_name(MSG_KEY_CLUSTER), "cluster-key", "type name");
	is_str(msg_key_type_name(MSG_KEY_USER_PUB), "user-pub", "type name");
	is_str(msg_key_type_name(MSG_KEY_UNDEF), "undefined", "undef name");
	is_str(msg_key_type_name(MSG_KEY_MAX), "undefined", "MAX name");
}

static void
test_roundtrip(void)
{
	static const enum msg_key_type types[] = { MSG_KEY_CLUSTER,
	    MSG_KEY_CLUSTER_PUB, MSG_KEY_USER, MSG_KEY_USER_PUB };
	struct msg_keyset ks, back, pubs;
	struct msg_key secret;
	struct stat st;
	char name[32], fa[64], fb[64];
	size_t i;
	int j;

	for (i = 0; i < 4; i++) {
		enum msg_key_type t = types[i];
		enum msg_key_type st_type = t == MSG_KEY_CLUSTER_PUB ?
		    MSG_KEY_CLUSTER : t == MSG_KEY_USER_PUB ? MSG_KEY_USER : t;
		int secret_type = t == MSG_KEY_CLUSTER || t == MSG_KEY_USER;

		memset(&ks, 0, sizeof(ks));
		for (j = 0; j < 2; j++) {
			if (msg_key_generate(&secret, st_type,
			    st_type == MSG_KEY_USER ? "alice" : NULL) == -1)
				ok(0, "generate");
			if (secret_type)
				ks.ks_key[j] = secret;
			else
				msg_key_public(&secret, &ks.ks_key[j]);
		}
		for (j = 1; j <= 2; j++) {
			ks.ks_n = j;
			snprintf(name, sizeof(name), "rt-%s-%d",
			    msg_key_type_name(t), j);
			if (msg_keyset_save(&ks, tpath(name), 0, err,
			    sizeof(err)) == -1) {
				ok(0, "save %s: %s", name, err);
				continue;
			}
			if (stat(path, &st) == -1)
				st.st_mode = 0;
			ok((st.st_mode & 07777) == (secret_type ? 0600u :
			    0644u), "%s saved with mode %04o", name,
			    (unsigned)(st.st_mode & 07777));
			if (msg_keyset_load(&back, path, MSG_KEY_UNDEF, err,
			    sizeof(err)) == -1) {
				ok(0, "load %s: %s", name, err);
				continue;
			}
			ok(back.ks_n == j && key_eq(&back.ks_key[0],
			    &ks.ks_key[0]) && (j == 1 ||
			    key_eq(&back.ks_key[1], &ks.ks_key[1])),
			    "%s: %d key(s) round-trip exactly, in order",
			    name, j);
			ok(msg_keyset_load(&back, path, t, err,
			    sizeof(err)) == 0, "%s loads as want_type %s",
			    name, msg_key_type_name(t));
			msg_keyset_clear(&back);
		}
	}

	/* A secret key and its public half, through files. */
	memset(&ks, 0, sizeof(ks));
	memset(&pubs, 0, sizeof(pubs));
	if (msg_key_generate(&ks.ks_key[0], MSG_KEY_USER, "bob") == -1)
		ok(0, "generate");
	ks.ks_n = 1;
	msg_key_public(&ks.ks_key[0], &pubs.ks_key[0]);
	pubs.ks_n = 1;
	if (msg_keyset_save(&ks, tpath("bob.key"), 0, err, sizeof(err)) == -1 ||
	    msg_keyset_save(&pubs, tpath("bob.pub"), 0, err,
	    sizeof(err)) == -1)
		ok(0, "save bob: %s", err);
	if (msg_keyset_load(&back, tpath("bob.key"), MSG_KEY_USER, err,
	    sizeof(err)) == -1 || msg_keyset_load(&pubs, tpath("bob.pub"),
	    MSG_KEY_USER_PUB, err, sizeof(err)) == -1)
		ok(0, "load bob: %s", err);
	ok(back.ks_key[0].k_id == ks.ks_key[0].k_id &&
	    pubs.ks_key[0].k_id == ks.ks_key[0].k_id,
	    "id stable across save/load, equal for secret and public");
	msg_key_fpr_text(&back.ks_key[0], fa, sizeof(fa));
	msg_key_fpr_text(&pubs.ks_key[0], fb, sizeof(fb));
	ok(strcmp(fa, fb) == 0 && memcmp(back.ks_key[0].k_fpr,
	    ks.ks_key[0].k_fpr, MSG_FPR_LEN) == 0,
	    "fingerprint stable and equal: %s", fa);
	ok(memcmp(back.ks_key[0].k_pk, pubs.ks_key[0].k_pk,
	    sizeof(back.ks_key[0].k_pk)) == 0, "same public key");
	{
		uint8_t sig[crypto_sign_BYTES];

		crypto_sign_detached(sig, NULL, (const uint8_t *)"m", 1,
		    back.ks_key[0].k_sk);
		ok(crypto_sign_verify_detached(sig, (const uint8_t *)"m", 1,
		    pubs.ks_key[0].k_pk) == 0,
		    "the loaded secret signs what the loaded public verifies");
	}
	msg_keyset_clear(&back);
	msg_keyset_clear(&ks);
	unlink(tpath("bob.key"));
	unlink(tpath("bob.pub"));
	for (i = 0; i < 4; i++)
		for (j = 1; j <= 2; j++) {
			snprintf(name, sizeof(name), "rt-%s-%d",
			    msg_key_type_name(types[i]), j);
			unlink(tpath(name));
		}
}

static void
test_modes(void)
{
	static const mode_t refused[] = { 0640, 0604, 0660, 0606, 0644, 0610,
	    0601, 0620, 0602 };
	struct msg_keyset ks, back;
	char text[MSG_KEYFILE_MAX], pubtext[MSG_KEYFILE_MAX];
	size_t i;

	memset(&ks, 0, sizeof(ks));
	if (msg_key_generate(&ks.ks_key[0], MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	ks.ks_n = 1;
	if (msg_keyset_format(&ks, text, sizeof(text)) == -1)
		ok(0, "format");
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		write_file(tpath("mode.key"), refused[i], text);
		errno = 0;
		ok(load_refused(path, MSG_KEY_UNDEF, "chmod") && errno == EPERM,
		    "secret key file with mode %04o refused, EPERM, "
		    "message says chmod", (unsigned)refused[i]);
	}
	write_file(tpath("mode.key"), 0600, text);
	ok(msg_keyset_load(&back, path, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == 0, "secret key file with mode 0600 accepted");
	write_file(tpath("mode.key"), 0400, text);
	ok(msg_keyset_load(&back, path, MSG_KEY_CLUSTER, err,
	    sizeof(err)) == 0, "secret key file with mode 0400 accepted");
	msg_keyset_clear(&back);

	{
		struct msg_key pub;

		msg_key_public(&ks.ks_key[0], &pub);
		ks.ks_key[0] = pub;
	}
	if (msg_keyset_format(&ks, pubtext, sizeof(pubtext)) == -1)
		ok(0, "format");
	write_file(tpath("mode.pub"), 0644, pubtext);
	ok(msg_keyset_load(&back, path, MSG_KEY_CLUSTER_PUB, err,
	    sizeof(err)) == 0, "public key file with mode 0644 accepted");
	write_file(tpath("mode.pub"), 0444, pubtext);
	ok(msg_keyset_load(&back, path, MSG_KEY_CLUSTER_PUB, err,
	    sizeof(err)) == 0, "public key file with mode 0444 accepted");
	unlink(tpath("mode.key"));
	unlink(tpath("mode.pub"));
	msg_keyset_clear(&ks);
}

static void
test_overwrite(void)
{
	struct msg_keyset a, b, back;
	struct stat st;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (msg_key_generate(&a.ks_key[0], MSG_KEY_USER, "carol") == -1 ||
	    msg_key_generate(&b.ks_key[0], MSG_KEY_USER, "carol") == -1)
		ok(0, "generate");
	a.ks_n = b.ks_n = 1;
	ok(msg_keyset_save(&a, tpath("ow.key"), 0, err, sizeof(err)) == 0,
	    "first save");
	errno = 0;
	err[0] = '\0';
	ok(msg_keyset_save(&b, path, 0, err, sizeof(err)) == -1 &&
	    errno == EEXIST && err[0] != '\0',
	    "second save without force: EEXIST, with a message");
	ok(msg_keyset_load(&back, path, MSG_KEY_USER, err, sizeof(err)) ==
	    0 && back.ks_key[0].k_id == a.ks_key[0].k_id,
	    "the first key is still there");
	ok(msg_keyset_save(&b, path, 1, err, sizeof(err)) == 0,
	    "save with force");
	ok(msg_keyset_load(&back, path, MSG_KEY_USER, err, sizeof(err)) ==
	    0 && back.ks_key[0].k_id == b.ks_key[0].k_id,
	    "now holds the second key");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600,
	    "still mode 0600");
	{
		struct msg_keyset empty;

		memset(&empty, 0, sizeof(empty));
		errno = 0;
		ok(msg_keyset_save(&empty, tpath("empty.key"), 0, err,
		    sizeof(err)) == -1 && errno == EINVAL &&
		    access(path, F_OK) == -1, "an empty set is not saved");
	}
	errno = 0;
	ok(msg_keyset_save(&a, "/nonexistent-dir/x.key", 1, err,
	    sizeof(err)) == -1 && errno == ENOENT && err[0] != '\0',
	    "save into a missing folder fails with ENOENT");
	unlink(tpath("ow.key"));
	msg_keyset_clear(&a);
	msg_keyset_clear(&b);
	msg_keyset_clear(&back);
}

static void
test_counts_and_mixing(void)
{
	struct msg_key c1, c2, c3, u1, u2, ub;
	char l1[512], l2[512], l3[512], text[2048];

	if (msg_key_generate(&c1, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&c2, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&c3, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&u1, MSG_KEY_USER, "alice") == -1 ||
	    msg_key_generate(&u2, MSG_KEY_USER, "alice") == -1 ||
	    msg_key_generate(&ub, MSG_KEY_USER, "bob") == -1)
		ok(0, "generate");
	format_one(&c1, l1, sizeof(l1));
	format_one(&c2, l2, sizeof(l2));
	format_one(&c3, l3, sizeof(l3));
	snprintf(text, sizeof(text), "%s%s%s", l1, l2, l3);
	write_file(tpath("three.key"), 0600, text);
	ok(load_refused(path, MSG_KEY_UNDEF, "more than 2 keys"),
	    "a file with 3 keys is refused: %s", err);
	ok(strstr(err, ":6:") != NULL, "at the line of the third key");
	snprintf(text, sizeof(text), "%s%s", l1, l2);
	write_file(tpath("two.key"), 0600, text);
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_CLUSTER, err,
		    sizeof(err)) == 0 && ks.ks_n == 2 &&
		    ks.ks_key[0].k_id == c1.k_id &&
		    ks.ks_key[1].k_id == c2.k_id,
		    "two keys: current then previous");
		msg_keyset_clear(&ks);
	}

	format_one(&u1, l2, sizeof(l2));
	snprintf(text, sizeof(text), "%s%s", l1, l2);
	write_file(tpath("mixed.key"), 0600, text);
	ok(load_refused(path, MSG_KEY_UNDEF, "different types"),
	    "cluster-key then user-key refused: %s", err);
	{
		struct msg_key pub;

		msg_key_public(&c2, &pub);
		format_one(&pub, l2, sizeof(l2));
		snprintf(text, sizeof(text), "%s%s", l1, l2);
		write_file(tpath("mixed.key"), 0600, text);
		ok(load_refused(path, MSG_KEY_UNDEF, "different types"),
		    "cluster-key then cluster-pub refused: %s", err);
	}
	format_one(&u1, l1, sizeof(l1));
	format_one(&ub, l2, sizeof(l2));
	snprintf(text, sizeof(text), "%s%s", l1, l2);
	write_file(tpath("mixed.key"), 0600, text);
	ok(load_refused(path, MSG_KEY_UNDEF, "names"),
	    "user keys of alice and bob in one file refused: %s", err);
	format_one(&u2, l2, sizeof(l2));
	snprintf(text, sizeof(text), "%s%s", l1, l2);
	write_file(tpath("mixed.key"), 0600, text);
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_USER, err,
		    sizeof(err)) == 0 && ks.ks_n == 2,
		    "two user keys of alice accepted");
		msg_keyset_clear(&ks);
	}

	/* want_type mismatches. */
	write_file(tpath("want.key"), 0600, l1);
	ok(load_refused(path, MSG_KEY_USER_PUB, "not a user-pub"),
	    "user-key loaded as user-pub refused: %s", err);
	ok(load_refused(path, MSG_KEY_CLUSTER, "not a cluster-key"),
	    "user-key loaded as cluster-key refused: %s", err);
	unlink(tpath("three.key"));
	unlink(tpath("two.key"));
	unlink(tpath("mixed.key"));
	unlink(tpath("want.key"));
}

static void
test_bad_lines(void)
{
	struct msg_key c, u, upub;
	char good[512], bad[600], *sp, *idp, *b64;
	size_t n;

	if (msg_key_generate(&c, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&u, MSG_KEY_USER, "alice") == -1)
		ok(0, "generate");
	msg_key_public(&u, &upub);

	/* "cluster-key ID B64": skip the comment line. */
	format_one(&c, good, sizeof(good));
	sp = strchr(good, '\n') + 1;
	memmove(good, sp, strlen(sp) + 1);
	idp = strchr(good, ' ') + 1;
	b64 = strchr(idp, ' ') + 1;
	write_file(tpath("bad.key"), 0600, good);
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_CLUSTER, err,
		    sizeof(err)) == 0, "the bare key line loads");
		msg_keyset_clear(&ks);
	}

	/* One hex digit of the id edited. */
	strlcpy(bad, good, sizeof(bad));
	n = (size_t)(idp - good) + 7;
	bad[n] = bad[n] == '0' ? '1' : '0';
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "does not match"),
	    "last id digit edited: %s", err);
	strlcpy(bad, good, sizeof(bad));
	n = (size_t)(idp - good);
	bad[n] = bad[n] == 'f' ? 'e' : 'f';
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "does not match"),
	    "first id digit edited: %s", err);
	ok(strstr(err, "bad.key:1:") != NULL, "message names file and line");
	strlcpy(bad, good, sizeof(bad));
	bad[(size_t)(idp - good) + 3] = 'g';
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key id"),
	    "non-hex id digit: %s", err);
	snprintf(bad, sizeof(bad), "cluster-key %.7s %s", idp, b64);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key id"),
	    "7-digit id: %s", err);
	snprintf(bad, sizeof(bad), "cluster-key %.8s0 %s", idp, b64);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key id"),
	    "9-digit id: %s", err);

	/* Corrupt base64. */
	strlcpy(bad, good, sizeof(bad));
	bad[(size_t)(b64 - good) + 5] = '!';
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key material"),
	    "'!' in the base64: %s", err);
	strlcpy(bad, good, sizeof(bad));
	bad[strlen(bad) - 5] = '\n';
	bad[strlen(bad) - 4] = '\0';
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key material"),
	    "base64 cut short: %s", err);
	snprintf(bad, sizeof(bad), "cluster-key %.8s %.*sQUJD\n", idp,
	    (int)strcspn(b64, "\n"), b64);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key material"),
	    "base64 with 3 extra bytes: %s", err);
	{
		/* Valid base64 of another key's length: a public key. */
		char pl[512], *pb;

		format_one(&upub, pl, sizeof(pl));
		pb = strrchr(pl, ' ') + 1;
		snprintf(bad, sizeof(bad), "cluster-key %.8s %s", idp, pb);
		write_file(tpath("bad.key"), 0600, bad);
		ok(load_refused(path, MSG_KEY_UNDEF, "bad key material"),
		    "cluster-key with 32 bytes of material: %s", err);
	}

	/* Field counts. */
	snprintf(bad, sizeof(bad), "cluster-key %.8s\n", idp);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "wrong number of fields"),
	    "2 fields: %s", err);
	snprintf(bad, sizeof(bad), "cluster-key\n");
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "wrong number of fields"),
	    "1 field: %s", err);
	snprintf(bad, sizeof(bad), "cluster-key extra %.8s %s", idp, b64);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "wrong number of fields"),
	    "4 fields for a cluster key: %s", err);
	snprintf(bad, sizeof(bad), "a b c d e f\n");
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "too many words"),
	    "6 words: %s", err);

	/* Unknown type word. */
	snprintf(bad, sizeof(bad), "cluster-secret %.8s %s", idp, b64);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "unknown key type"),
	    "type word cluster-secret: %s", err);
	snprintf(bad, sizeof(bad), "Cluster-key %.8s %s", idp, b64);
	write_file(tpath("bad.key"), 0600, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "unknown key type"),
	    "type word Cluster-key: %s", err);

	/* User lines: a good one, then bad names and a missing name. */
	format_one(&upub, good, sizeof(good));
	write_file(tpath("bad.pub"), 0644, good);
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_USER_PUB, err,
		    sizeof(err)) == 0 && strcmp(ks.ks_key[0].k_name,
		    "alice") == 0, "a user-pub line loads with its name");
	}
	sp = strstr(good, "alice");
	strlcpy(bad, good, sizeof(bad));
	memcpy(bad + (sp - good), "Alice", 5);
	write_file(tpath("bad.pub"), 0644, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad user name"),
	    "user name Alice: %s", err);
	strlcpy(bad, good, sizeof(bad));
	memcpy(bad + (sp - good), "../xy", 5);
	write_file(tpath("bad.pub"), 0644, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad user name"),
	    "user name ../xy: %s", err);
	sp = strstr(good, "user-pub");
	idp = strchr(sp + 9, ' ') + 1;
	snprintf(bad, sizeof(bad), "user-pub %s", idp);
	write_file(tpath("bad.pub"), 0644, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "wrong number of fields"),
	    "user-pub without a name: %s", err);

	/* A bad line after a good one still refuses the file. */
	format_one(&upub, good, sizeof(good));
	snprintf(bad, sizeof(bad), "%sjunk\n", good);
	write_file(tpath("bad.pub"), 0644, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, ":3:"),
	    "junk on line 3 after a good key: %s", err);
	unlink(tpath("bad.key"));
	unlink(tpath("bad.pub"));
}

/*
 * The id is 8 hex digits, as written; other spellings strtoul takes
 * ("+" sign, "0x" prefix) name the same number but are not the format.
 */
static void
test_id_spelling(void)
{
	struct msg_key k, pub;
	char good[512], bad[600], *idp, *b64;
	int tries;

	for (tries = 0; tries < 100000; tries++) {
		if (msg_key_generate(&k, MSG_KEY_CLUSTER, NULL) == -1)
			break;
		if (k.k_id < 0x01000000)
			break;
	}
	if (k.k_id >= 0x01000000) {
		ok(0, "no key with a small id found");
		return;
	}
	msg_key_public(&k, &pub);
	format_one(&pub, good, sizeof(good));
	idp = strchr(strchr(good, '\n') + 1, ' ') + 1;
	b64 = strchr(idp, ' ') + 1;
	snprintf(bad, sizeof(bad), "cluster-pub +%.7s %s", idp + 1, b64);
	write_file(tpath("spell.pub"), 0644, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key id"),
	    "id %08x spelled +%.7s is refused", k.k_id, idp + 1);
	snprintf(bad, sizeof(bad), "cluster-pub 0x%.6s %s", idp + 2, b64);
	write_file(tpath("spell.pub"), 0644, bad);
	ok(load_refused(path, MSG_KEY_UNDEF, "bad key id"),
	    "id %08x spelled 0x%.6s is refused", k.k_id, idp + 2);
	snprintf(bad, sizeof(bad), "cluster-pub %.8s %s", idp, b64);
	for (idp = bad; *idp != '\0' && *idp != '\n'; idp++)
		if (idp > bad + 11 && idp < bad + 20 && *idp >= 'a' &&
		    *idp <= 'f')
			*idp -= 'a' - 'A';
	write_file(tpath("spell.pub"), 0644, bad);
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_CLUSTER_PUB, err,
		    sizeof(err)) == 0, "upper-case hex digits are accepted");
	}
	unlink(tpath("spell.pub"));
}

static void
test_comments(void)
{
	struct msg_key u1, u2;
	struct msg_keyset ks;
	char l1[512], l2[512], text[2048];

	if (msg_key_generate(&u1, MSG_KEY_USER, "erin") == -1 ||
	    msg_key_generate(&u2, MSG_KEY_USER, "erin") == -1)
		ok(0, "generate");
	format_one(&u1, l1, sizeof(l1));
	format_one(&u2, l2, sizeof(l2));
	/* Strip the comment lines the formatter writes. */
	memmove(l1, strchr(l1, '\n') + 1, strlen(strchr(l1, '\n') + 1) + 1);
	memmove(l2, strchr(l2, '\n') + 1, strlen(strchr(l2, '\n') + 1) + 1);
	l2[strcspn(l2, "\n")] = '\0';	/* no newline at the end */
	snprintf(text, sizeof(text), "# erin's keys\n\n   \n\t# indented "
	    "comment\n  \t%s\n#\n\n%s", l1, l2);
	write_file(tpath("comments.key"), 0600, text);
	ok(msg_keyset_load(&ks, path, MSG_KEY_USER, err, sizeof(err)) == 0 &&
	    ks.ks_n == 2 && ks.ks_key[0].k_id == u1.k_id &&
	    ks.ks_key[1].k_id == u2.k_id,
	    "comments, blank lines, indentation and no final newline are "
	    "fine");
	msg_keyset_clear(&ks);
	snprintf(text, sizeof(text), "user-key\terin\t%s", strchr(strchr(l1,
	    ' ') + 1, ' ') + 1);
	write_file(tpath("comments.key"), 0600, text);
	ok(msg_keyset_load(&ks, path, MSG_KEY_USER, err, sizeof(err)) == 0 &&
	    ks.ks_n == 1, "tabs separate fields too");
	msg_keyset_clear(&ks);
	write_file(tpath("comments.key"), 0600, "# nothing\n\n");
	ok(load_refused(path, MSG_KEY_UNDEF, "no key"),
	    "only comments: %s", err);
	write_file(tpath("comments.key"), 0600, "");
	ok(load_refused(path, MSG_KEY_UNDEF, "no key"), "empty file: %s", err);
	unlink(tpath("comments.key"));
}

static void
test_files(void)
{
	struct msg_key c;
	char line[512], *text;
	size_t n;

	ok(load_refused(tpath("missing.key"), MSG_KEY_UNDEF,
	    "No such file"), "missing file: %s", err);
	ok(load_refused(tmpdir, MSG_KEY_UNDEF, "not a regular file"),
	    "a directory: %s", err);
	if (msg_key_generate(&c, MSG_KEY_CLUSTER, NULL) == -1)
		ok(0, "generate");
	format_one(&c, line, sizeof(line));
	write_file(tpath("real.key"), 0600, line);
	{
		char target[PATH_MAX];

		strlcpy(target, path, sizeof(target));
		if (symlink(target, tpath("link.key")) == -1)
			ok(0, "symlink");
	}
	/* Key files may be symbolic links; the target's mode counts. */
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_CLUSTER, err,
		    sizeof(err)) == 0 && ks.ks_key[0].k_id == c.k_id,
		    "a symbolic link to a 0600 secret key loads");
		msg_keyset_clear(&ks);
	}
	(void)chmod(tpath("real.key"), 0640);
	errno = 0;
	ok(load_refused(tpath("link.key"), MSG_KEY_UNDEF, "chmod") &&
	    errno == EPERM, "a link to a 0640 secret key is refused: %s", err);
	unlink(tpath("link.key"));
	unlink(tpath("real.key"));

	/* Exactly MSG_KEYFILE_MAX bytes: comment padding, then the key. */
	text = malloc(MSG_KEYFILE_MAX + 2048);
	n = MSG_KEYFILE_MAX - strlen(line);
	memset(text, '#', n);
	text[n - 1] = '\n';
	strlcpy(text + n, line, MSG_KEYFILE_MAX + 2048 - n);
	write_file(tpath("big.key"), 0600, text);
	{
		struct msg_keyset ks;

		ok(msg_keyset_load(&ks, path, MSG_KEY_CLUSTER, err,
		    sizeof(err)) == 0, "a file of exactly %d bytes loads",
		    MSG_KEYFILE_MAX);
		msg_keyset_clear(&ks);
	}
	/* The key first, then comments past MSG_KEYFILE_MAX. */
	n = strlcpy(text, line, MSG_KEYFILE_MAX + 2048);
	memset(text + n, '#', MSG_KEYFILE_MAX + 1 - n);
	text[MSG_KEYFILE_MAX + 1] = '\0';
	write_file(tpath("big.key"), 0600, text);
	/* The file is read one byte past the limit to notice this. */
	ok(load_refused(path, MSG_KEY_UNDEF, "too large"),
	    "a file of %d bytes is refused as too large", MSG_KEYFILE_MAX + 1);
	/* A third key hidden past MSG_KEYFILE_MAX. */
	n = strlcpy(text, line, MSG_KEYFILE_MAX + 2048);
	memset(text + n, '#', MSG_KEYFILE_MAX - n);
	text[MSG_KEYFILE_MAX - 1] = '\n';
	text[MSG_KEYFILE_MAX] = '\0';
	strlcat(text, "cluster-key 00000000 garbage\n", MSG_KEYFILE_MAX + 2048);
	write_file(tpath("big.key"), 0600, text);
	ok(load_refused(path, MSG_KEY_UNDEF, NULL),
	    "a bad line past byte %d is not ignored", MSG_KEYFILE_MAX);
	/*
	 * "Every line is checked": a NUL byte must not hide what follows.
	 */
	n = strlcpy(text, line, MSG_KEYFILE_MAX + 2048);
	memcpy(text + n, "\0cluster-key 00000000 garbage\n", 30);
	{
		int fd;

		unlink(tpath("nul.key"));
		if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL,
		    0600)) == -1 ||
		    write(fd, text, n + 30) != (ssize_t)(n + 30) ||
		    close(fd) == -1)
			ok(0, "write nul.key");
	}
	ok(load_refused(path, MSG_KEY_UNDEF, NULL),
	    "a bad line after a NUL byte is not ignored");
	unlink(tpath("nul.key"));
	unlink(tpath("big.key"));
	free(text);
}

/* s with control and non-ASCII bytes as \ooo, for test names. */
static const char *
vis(const char *s)
{
	static char buf[256];
	size_t off = 0;

	for (; *s != '\0' && off + 5 < sizeof(buf); s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
			    "\\%03o", c);
		else
			buf[off++] = (char)c;
	}
	buf[off] = '\0';
	return buf;
}

static void
test_user_names(void)
{
	static const struct {
		const char	*name;
		int		 want;
	} cases[] = {
		{ "alice", 1 }, { "a", 1 }, { "_", 1 }, { "_svc-1.x", 1 },
		{ "z9", 1 }, { "abcdefghijklmnopqrstuvwxyz012345", 1 },
		{ "abcdefghijklmnopqrstuvwxyz0123456", 0 },
		{ "", 0 }, { "Alice", 0 }, { "aliCe", 0 }, { "9lives", 0 },
		{ "-x", 0 }, { ".x", 0 }, { "..", 0 }, { "../x", 0 },
		{ "a/b", 0 }, { "a b", 0 }, { "a:b", 0 }, { "@cluster", 0 },
		{ "a\tb", 0 }, { "\xc3\xa9t\xc3\xa9", 0 }, { "a\nb", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_int(msg_user_name_ok(cases[i].name), cases[i].want,
		    "msg_user_name_ok(\"%s\")", vis(cases[i].name));
}

int
main(void)
{
	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	umask(022);
	if (mkdtemp(tmpdir) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_generate();
	test_roundtrip();
	test_modes();
	test_overwrite();
	test_counts_and_mixing();
	test_bad_lines();
	test_id_spelling();
	test_comments();
	test_files();
	test_user_names();
	ok(rmdir(tmpdir) == 0, "temporary folder left empty and removed");
	return tap_done();
}
