/* msg_keys — key generation, ids, fingerprints and key files. */
#include "msg_keys.h"
#include "readfile.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED_LEN	crypto_sign_SEEDBYTES
#define AEAD_LEN	crypto_aead_xchacha20poly1305_ietf_KEYBYTES
#define B64_MAX		128

static const char *const key_words[MSG_KEY_MAX] = {
	[MSG_KEY_CLUSTER] = "cluster-key",
	[MSG_KEY_CLUSTER_PUB] = "cluster-pub",
	[MSG_KEY_USER] = "user-key",
	[MSG_KEY_USER_PUB] = "user-pub",
};

static int
key_is_secret(enum msg_key_type t)
{
	return t == MSG_KEY_CLUSTER || t == MSG_KEY_USER;
}

static int
key_has_name(enum msg_key_type t)
{
	return t == MSG_KEY_USER || t == MSG_KEY_USER_PUB;
}

const char *
msg_key_type_name(enum msg_key_type t)
{
	if (t <= MSG_KEY_UNDEF || t >= MSG_KEY_MAX)
		return "undefined";
	return key_words[t];
}

int
msg_user_name_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > MSG_NAME_MAX)
		return 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

/* Id and fingerprint both come from the public half, so they are public. */
static void
key_derive_ids(struct msg_key *k)
{
	static const char personal[] = "cilknow-fpr-v1";
	uint8_t h[MSG_FPR_LEN];
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	crypto_generichash_update(&st, (const uint8_t *)personal,
	    sizeof(personal));
	crypto_generichash_update(&st, k->k_pk, sizeof(k->k_pk));
	crypto_generichash_final(&st, h, sizeof(h));
	memcpy(k->k_fpr, h, sizeof(h));
	k->k_id = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
	    (uint32_t)h[2] << 8 | h[3];
}

static int
key_from_seed(struct msg_key *k, const uint8_t seed[SEED_LEN])
{
	if (crypto_sign_seed_keypair(k->k_pk, k->k_sk, seed) != 0)
		return -1;
	key_derive_ids(k);
	return 0;
}

int
msg_key_generate(struct msg_key *k, enum msg_key_type type, const char *name)
{
	uint8_t seed[SEED_LEN];
	int rc;

	memset(k, 0, sizeof(*k));
	if (type != MSG_KEY_CLUSTER && type != MSG_KEY_USER) {
		errno = EINVAL;
		return -1;
	}
	if (type == MSG_KEY_USER) {
		if (name == NULL || !msg_user_name_ok(name)) {
			errno = EINVAL;
			return -1;
		}
		strlcpy(k->k_name, name, sizeof(k->k_name));
	}
	k->k_type = type;
	if (type == MSG_KEY_CLUSTER)
		crypto_aead_xchacha20poly1305_ietf_keygen(k->k_aead);
	randombytes_buf(seed, sizeof(seed));
	rc = key_from_seed(k, seed);
	sodium_memzero(seed, sizeof(seed));
	return rc;
}

void
msg_key_public(const struct msg_key *k, struct msg_key *pub)
{
	memset(pub, 0, sizeof(*pub));
	pub->k_type = k->k_type == MSG_KEY_CLUSTER ? MSG_KEY_CLUSTER_PUB :
	    k->k_type == MSG_KEY_USER ? MSG_KEY_USER_PUB : k->k_type;
	pub->k_id = k->k_id;
	memcpy(pub->k_name, k->k_name, sizeof(pub->k_name));
	memcpy(pub->k_pk, k->k_pk, sizeof(pub->k_pk));
	memcpy(pub->k_fpr, k->k_fpr, sizeof(pub->k_fpr));
}

void
msg_key_fpr_text(const struct msg_key *k, char *buf, size_t bufsz)
{
	size_t i, off = 0;

	if (bufsz == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < MSG_FPR_LEN && off + 3 < bufsz; i++) {
		snprintf(buf + off, bufsz - off, "%s%02x",
		    i > 0 && i % 2 == 0 ? ":" : "", k->k_fpr[i]);
		off = strlen(buf);
	}
}

/* The secret material of one key as it is stored: aead || seed, or pk. */
static size_t
key_material(const struct msg_key *k, uint8_t *out)
{
	switch (k->k_type) {
	case MSG_KEY_CLUSTER:
		memcpy(out, k->k_aead, AEAD_LEN);
		/* libsodium's secret key starts with the seed. */
		memcpy(out + AEAD_LEN, k->k_sk, SEED_LEN);
		return AEAD_LEN + SEED_LEN;
	case MSG_KEY_USER:
		memcpy(out, k->k_sk, SEED_LEN);
		return SEED_LEN;
	default:
		memcpy(out, k->k_pk, sizeof(k->k_pk));
		return sizeof(k->k_pk);
	}
}

static size_t
material_len(enum msg_key_type t)
{
	return t == MSG_KEY_CLUSTER ? AEAD_LEN + SEED_LEN : SEED_LEN;
}

/* Parses one non-comment line into k; -1 with a reason. */
static int
key_parse_line(struct msg_key *k, char *line, char *err, size_t errlen)
{
	char *word[5], *save = NULL, *tok, *idtext, *b64;
	uint8_t mat[AEAD_LEN + SEED_LEN];
	size_t n = 0, matlen;
	unsigned long id;
	char *end;
	enum msg_key_type t;
	int rc = -1;

	for (tok = strtok_r(line, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		if (n == 5) {
			snprintf(err, errlen, "too many words");
			return -1;
		}
		word[n++] = tok;
	}
	memset(k, 0, sizeof(*k));
	for (t = MSG_KEY_UNDEF + 1; t < MSG_KEY_MAX; t++)
		if (n > 0 && strcmp(word[0], key_words[t]) == 0)
			break;
	if (t == MSG_KEY_MAX) {
		snprintf(err, errlen, "unknown key type '%s'",
		    n > 0 ? word[0] : "");
		return -1;
	}
	if (n != (key_has_name(t) ? 4u : 3u)) {
		snprintf(err, errlen, "%s: wrong number of fields",
		    key_words[t]);
		return -1;
	}
	k->k_type = t;
	if (key_has_name(t)) {
		if (!msg_user_name_ok(word[1])) {
			snprintf(err, errlen, "bad user name");
			return -1;
		}
		strlcpy(k->k_name, word[1], sizeof(k->k_name));
	}
	idtext = word[n - 2];
	b64 = word[n - 1];
	errno = 0;
	id = strtoul(idtext, &end, 16);
	if (strlen(idtext) != 8 || strspn(idtext, "0123456789abcdefABCDEF") != 8 ||
	    *end != '\0' || errno != 0) {
		snprintf(err, errlen, "bad key id '%s'", idtext);
		return -1;
	}
	matlen = key_is_secret(t) ? material_len(t) : crypto_sign_PUBLICKEYBYTES;
	if (sodium_base642bin(mat, sizeof(mat), b64, strlen(b64), NULL, &n,
	    NULL, sodium_base64_VARIANT_ORIGINAL) != 0 || n != matlen) {
		snprintf(err, errlen, "bad key material");
		goto out;
	}
	switch (t) {
	case MSG_KEY_CLUSTER:
		memcpy(k->k_aead, mat, AEAD_LEN);
		if (key_from_seed(k, mat + AEAD_LEN) == -1)
			goto bad;
		break;
	case MSG_KEY_USER:
		if (key_from_seed(k, mat) == -1)
			goto bad;
		break;
	default:
		memcpy(k->k_pk, mat, crypto_sign_PUBLICKEYBYTES);
		key_derive_ids(k);
		break;
	}
	if (k->k_id != (uint32_t)id) {
		snprintf(err, errlen, "key id %s does not match the key "
		    "(corrupt file?)", idtext);
		goto out;
	}
	rc = 0;
	goto out;
 bad:
	snprintf(err, errlen, "cannot derive key pair");
 out:
	sodium_memzero(mat, sizeof(mat));
	if (rc == -1)
		sodium_memzero(k, sizeof(*k));
	return rc;
}

/* Whoever may write a key file may impersonate its owner. */
static int
mode_writable(const char *path, mode_t mode, char *err, size_t errlen)
{
	if ((mode & (S_IWGRP | S_IWOTH)) == 0)
		return 0;
	snprintf(err, errlen, "%s: key file is writable by group or others "
	    "(mode %04o); chmod go-w it", path, (unsigned)(mode & 07777));
	errno = EPERM;
	return -1;
}

int
msg_keyfile_read(const char *path, char *buf, size_t bufsz, size_t *lenp,
    mode_t *modep, char *err, size_t errlen)
{
	mode_t mode = 0;

	*lenp = 0;
	if (bufsz < MSG_KEYFILE_MAX + 2) {
		snprintf(err, errlen, "%s: buffer too small", path);
		errno = EINVAL;
		return -1;
	}
	/* One byte more than allowed, to notice a file that is too large. */
	if (readfile(path, buf, MSG_KEYFILE_MAX + 1, lenp, &mode, 0) == -1) {
		snprintf(err, errlen, "%s: %s", path, errno == EINVAL ?
		    "not a regular file" : errno == EFBIG ? "file too large" :
		    strerror(errno));
		goto fail;
	}
	if (mode_writable(path, mode, err, errlen) == -1)
		goto fail;
	*modep = mode;
	return 0;
 fail:
	*lenp = 0;
	sodium_memzero(buf, bufsz);	/* a part of a key, maybe */
	return -1;
}

int
msg_keyset_parse(struct msg_keyset *ks, const char *path, const char *text,
    size_t len, mode_t mode, enum msg_key_type want, char *err,
    size_t errlen)
{
	char buf[MSG_KEYFILE_MAX + 1], reason[128], *line, *next;
	int lineno = 0;

	memset(ks, 0, sizeof(*ks));
	if (len > MSG_KEYFILE_MAX) {
		snprintf(err, errlen, "%s: file too large", path);
		errno = EFBIG;
		return -1;
	}
	if (memchr(text, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
		errno = EINVAL;
		return -1;
	}
	if (mode_writable(path, mode, err, errlen) == -1)
		return -1;
	/* A copy: lines are cut in place. */
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (*line == '#' || *line == '\0')
			continue;
		if (ks->ks_n == MSG_KEYS_PER_FILE) {
			snprintf(err, errlen, "%s:%d: more than %d keys", path,
			    lineno, MSG_KEYS_PER_FILE);
			goto fail;
		}
		if (key_parse_line(&ks->ks_key[ks->ks_n], line, reason,
		    sizeof(reason)) == -1) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, reason);
			goto fail;
		}
		if (ks->ks_n > 0 && (ks->ks_key[0].k_type !=
		    ks->ks_key[ks->ks_n].k_type || strcmp(ks->ks_key[0].k_name,
		    ks->ks_key[ks->ks_n].k_name) != 0)) {
			snprintf(err, errlen, "%s:%d: keys of different types "
			    "or names in one file", path, lineno);
			goto fail;
		}
		ks->ks_n++;
	}
	if (ks->ks_n == 0) {
		snprintf(err, errlen, "%s: no key in file", path);
		goto fail;
	}
	if (want != MSG_KEY_UNDEF && ks->ks_key[0].k_type != want) {
		snprintf(err, errlen, "%s: holds a %s, not a %s", path,
		    key_words[ks->ks_key[0].k_type], msg_key_type_name(want));
		goto fail;
	}
	/* Fail closed: a secret that others could read is no secret. */
	if (key_is_secret(ks->ks_key[0].k_type) &&
	    (mode & (S_IRWXG | S_IRWXO)) != 0) {
		snprintf(err, errlen, "%s: secret key file is accessible by "
		    "group or others (mode %04o); chmod 600 it", path,
		    (unsigned)(mode & 07777));
		sodium_memzero(buf, sizeof(buf));
		msg_keyset_clear(ks);
		errno = EPERM;
		return -1;
	}
	sodium_memzero(buf, sizeof(buf));
	return 0;
 fail:
	sodium_memzero(buf, sizeof(buf));
	msg_keyset_clear(ks);
	errno = EINVAL;
	return -1;
}

int
msg_keyset_load(struct msg_keyset *ks, const char *path,
    enum msg_key_type want, char *err, size_t errlen)
{
	char text[MSG_KEYFILE_MAX + 2];
	size_t len;
	mode_t mode;
	int rc;

	memset(ks, 0, sizeof(*ks));
	if (msg_keyfile_read(path, text, sizeof(text), &len, &mode, err,
	    errlen) == -1)
		return -1;
	rc = msg_keyset_parse(ks, path, text, len, mode, want, err, errlen);
	sodium_memzero(text, sizeof(text));
	return rc;
}

int
msg_keyset_format(const struct msg_keyset *ks, char *buf, size_t bufsz)
{
	uint8_t mat[AEAD_LEN + SEED_LEN];
	char b64[B64_MAX], fpr[64];
	size_t off = 0, matlen;
	int i, n;

	for (i = 0; i < ks->ks_n; i++) {
		const struct msg_key *k = &ks->ks_key[i];

		matlen = key_material(k, mat);
		sodium_bin2base64(b64, sizeof(b64), mat, matlen,
		    sodium_base64_VARIANT_ORIGINAL);
		sodium_memzero(mat, sizeof(mat));
		msg_key_fpr_text(k, fpr, sizeof(fpr));
		n = snprintf(buf + off, bufsz - off,
		    "# %s key, fingerprint %s\n%s%s%s %08x %s\n",
		    i == 0 ? "current" : "previous", fpr, key_words[k->k_type],
		    key_has_name(k->k_type) ? " " : "", k->k_name, k->k_id, b64);
		sodium_memzero(b64, sizeof(b64));
		if (n < 0 || (size_t)n >= bufsz - off)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int
msg_keyset_save(const struct msg_keyset *ks, const char *path, int force,
    char *err, size_t errlen)
{
	char text[MSG_KEYFILE_MAX], tmp[4096];
	size_t len, off = 0;
	ssize_t w;
	mode_t mode;
	int fd, saved;

	if (ks->ks_n < 1 || msg_keyset_format(ks, text, sizeof(text)) == -1) {
		snprintf(err, errlen, "%s: nothing to write", path);
		errno = EINVAL;
		return -1;
	}
	if (!force && access(path, F_OK) == 0) {
		snprintf(err, errlen, "%s: exists; not overwriting a key "
		    "without -F", path);
		sodium_memzero(text, sizeof(text));
		errno = EEXIST;
		return -1;
	}
	mode = key_is_secret(ks->ks_key[0].k_type) ? 0600 : 0644;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >=
	    sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(tmp)) == -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		sodium_memzero(text, sizeof(text));
		return -1;
	}
	len = strlen(text);
	if (fchmod(fd, mode) == -1)
		goto fail;
	while (off < len) {
		if ((w = write(fd, text + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1)
		goto fail;
	sodium_memzero(text, sizeof(text));
	return 0;
 fail:
	saved = errno;
	snprintf(err, errlen, "%s: %s", path, strerror(saved));
	if (fd != -1)
		close(fd);
	unlink(tmp);
	sodium_memzero(text, sizeof(text));
	errno = saved;
	return -1;
}

void
msg_keyset_clear(struct msg_keyset *ks)
{
	sodium_memzero(ks, sizeof(*ks));
}
