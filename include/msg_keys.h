/*
 * msg_keys — the keys of the secure message layer and their files.
 *
 * A cluster key is shared by the daemons: 32 bytes for the AEAD of the
 * `cluster` scheme and an Ed25519 seed whose public half (cluster.pub)
 * lets utilities verify what daemons sign for them as "@cluster".  A user
 * key is an Ed25519 seed; its public half is /etc/cilknow/users/NAME.pub.
 * Every key has an id (derived from its public half) and a fingerprint.
 * A key file may hold two keys, current then previous, so keys rotate
 * without downtime: senders use the current one, receivers accept both.
 * File formats are in CilkKey(1).
 */
#ifndef CILKNOW_MSG_KEYS_H
#define CILKNOW_MSG_KEYS_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <sodium.h>

#define MSG_KEYS_PER_FILE	2	/* current, previous */
#define MSG_NAME_MAX		32
#define MSG_CLUSTER_NAME	"@cluster"
#define MSG_FPR_LEN		16	/* fingerprint bytes */
#define MSG_KEYFILE_MAX		4096	/* bytes read of a key file */

enum msg_key_type {
	MSG_KEY_UNDEF = 0,
	MSG_KEY_CLUSTER,	/* secret: aead + signing seed */
	MSG_KEY_CLUSTER_PUB,	/* public: verification only */
	MSG_KEY_USER,		/* secret: signing seed, with a name */
	MSG_KEY_USER_PUB,	/* public: verification, with a name */
	MSG_KEY_MAX
};

struct msg_key {
	enum msg_key_type	 k_type;
	uint32_t		 k_id;
	char			 k_name[MSG_NAME_MAX + 1]; /* users only */
	uint8_t			 k_aead[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
	uint8_t			 k_sk[crypto_sign_SECRETKEYBYTES];
	uint8_t			 k_pk[crypto_sign_PUBLICKEYBYTES];
	uint8_t			 k_fpr[MSG_FPR_LEN];
};

/* The keys read from one file; [0] is the current key. */
struct msg_keyset {
	struct msg_key		 ks_key[MSG_KEYS_PER_FILE];
	int			 ks_n;
};

/* Fresh random key of type CLUSTER or USER (name for USER). -1 on error. */
int	msg_key_generate(struct msg_key *, enum msg_key_type,
	    const char *name);
/* The public counterpart of a secret key. */
void	msg_key_public(const struct msg_key *, struct msg_key *pub);
/* "xxxx:xxxx:…" into buf (at least 48 bytes). */
void	msg_key_fpr_text(const struct msg_key *, char *buf, size_t bufsz);
const char *msg_key_type_name(enum msg_key_type);

/* 1 if s is a valid user name ([a-z_][a-z0-9_.-]*, 1..32 bytes). */
int	msg_user_name_ok(const char *);

/*
 * Reads a key file.  A file holding a secret key must not be readable
 * by group or others (refused, errno EPERM).  Every line is checked;
 * on error -1 with a reason in err.  want_type UNDEF accepts any type,
 * but all keys of one file have the same type (and name).
 */
int	msg_keyset_load(struct msg_keyset *, const char *path,
	    enum msg_key_type want_type, char *err, size_t errlen);
/*
 * msg_keyset_load in two halves, for a privileged process that reads key
 * files on behalf of an unprivileged one (priv.h).  msg_keyfile_read:
 * the text of a regular file of at most MSG_KEYFILE_MAX bytes into buf
 * (bufsz at least MSG_KEYFILE_MAX + 2, NUL-terminated) with its length
 * and permission bits, refusing a file that group or others may write.
 * msg_keyset_parse: that text, with the checks of msg_keyset_load that
 * need the permission bits (mode); path only names it in messages.
 * Both: -1 with a reason in err and errno (ENOENT, EACCES, EPERM, ...).
 */
int	msg_keyfile_read(const char *path, char *buf, size_t bufsz,
	    size_t *len, mode_t *mode, char *err, size_t errlen);
int	msg_keyset_parse(struct msg_keyset *, const char *path,
	    const char *text, size_t len, mode_t mode,
	    enum msg_key_type want_type, char *err, size_t errlen);
/*
 * Writes the set atomically (temporary file, fsync, rename) with mode
 * 0600 for secret keys and 0644 for public ones.  Refuses to replace an
 * existing file unless force.  -1 with a reason in err.
 */
int	msg_keyset_save(const struct msg_keyset *, const char *path,
	    int force, char *err, size_t errlen);
/* Text of the whole file, for public keys printed to stdout. */
int	msg_keyset_format(const struct msg_keyset *, char *buf, size_t bufsz);
/* Wipes secret material. */
void	msg_keyset_clear(struct msg_keyset *);

#endif
