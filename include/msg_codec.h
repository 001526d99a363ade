/*
 * msg_codec — one secure active message as bytes: the clear header,
 * sealing under a scheme and opening (validate, then verify, then hand
 * out the payload).  Pure apart from reading our own user's public key
 * and cluster.pub again.
 * The format is documented in cilknow-protocol(7).
 */
#ifndef CILKNOW_MSG_CODEC_H
#define CILKNOW_MSG_CODEC_H

#include <sys/socket.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "msg_keys.h"
#include "msg_munge.h"
#include "msg_users.h"

#define MSG_MAGIC		0xC1
#define MSG_VERSION		1
#define MSG_KIND_MESSAGE	1
#define MSG_KIND_FRAGMENT	2
#define MSG_NONCE_LEN		24
#define MSG_HDR_FIXED		62	/* header bytes before the name */
#define MSG_HDR_MAX		(MSG_HDR_FIXED + MSG_NAME_MAX)
#define MSG_TAG_LEN		16
#define MSG_SIG_LEN		64
#define MSG_PAYLOAD_MAX		65536
/* munge: the credential, then its u16 length (cilknow-protocol(7)) */
#define MSG_TRAILER_MAX		(MSG_CRED_MAX + 2)
#define MSG_SEALED_MAX		(MSG_HDR_MAX + MSG_PAYLOAD_MAX + MSG_TRAILER_MAX)
#define MSG_DGRAM_MAX		1472	/* one Ethernet frame of UDP/IPv4 */
#define MSG_PUBCACHE_TTL	5.0	/* seconds before a key file is re-read */

enum msg_scheme {
	MSG_SCHEME_UNDEF = 0,
	MSG_SCHEME_CLUSTER,	/* AEAD under the cluster key */
	MSG_SCHEME_USER,	/* Ed25519 signature by a principal's key */
	MSG_SCHEME_MUNGE,	/* a user's MUNGE credential; handlers see
				   it as USER (msg.h, mi_scheme) */
	MSG_SCHEME_JOB,		/* AEAD under one job's key (msg_keyring_set_job) */
	MSG_SCHEME_MAX
};

/* Why a datagram was dropped; every reason has a counter. */
enum msg_drop {
	MSG_DROP_NONE = 0,
	MSG_DROP_BAD_LENGTH,	/* runt, oversize, or a length field lies */
	MSG_DROP_BAD_HEADER,	/* magic, version, kind or name */
	MSG_DROP_BAD_SCHEME,	/* unknown, or not accepted by the handler */
	MSG_DROP_UNKNOWN_KEY,	/* key id or principal without a key here */
	MSG_DROP_BAD_MAC,	/* cluster scheme: AEAD failed */
	MSG_DROP_BAD_SIG,	/* user scheme: signature failed */
	MSG_DROP_STALE,		/* timestamp outside the replay window */
	MSG_DROP_REPLAY,	/* nonce seen before */
	MSG_DROP_MISADDRESSED,	/* sealed for another address */
	MSG_DROP_UNKNOWN_HANDLER,
	MSG_DROP_REASSEMBLY,	/* fragment storm over the memory bound */
	MSG_DROP_REASSEMBLY_TIMEOUT,
	MSG_DROP_BAD_CRED,	/* munge: invalid credential, or not this
				   message's, or a uid with no user name */
	MSG_DROP_RATE,		/* munge: a source whose credentials failed
				   too often, not decoded (msg_gate.h) */
	MSG_DROP_MAX
};

/* A UDP endpoint address as it travels in the header. */
struct msg_addr {
	uint8_t		ma_family;	/* 4 or 6 */
	uint8_t		ma_addr[16];	/* IPv4 in the first 4 bytes */
	uint16_t	ma_port;
};

struct msg_hdr {
	enum msg_scheme	mh_scheme;
	uint16_t	mh_handler;
	uint32_t	mh_keyid;
	uint64_t	mh_time_ms;	/* sender's realtime clock */
	uint8_t		mh_nonce[MSG_NONCE_LEN];
	struct msg_addr	mh_dst;		/* where the sender sent it */
	char		mh_name[MSG_NAME_MAX + 1]; /* claimed principal */
};

struct msg_pubcache_entry {
	char		pc_name[MSG_NAME_MAX + 1];
	double		pc_loaded;	/* now_mono() when read */
	int		pc_ok;		/* 0: no usable key file */
	struct msg_keyset pc_keys;
};

/* Everything needed to seal and open; zero it, then fill what you have. */
struct msg_keyring {
	struct msg_keyset	kr_cluster;	/* secret, daemons only */
	struct msg_keyset	kr_cluster_pub;	/* verifies "@cluster" */
	struct msg_keyset	kr_user;	/* my own signing key */
	char			kr_cluster_name[MSG_NAME_MAX + 1];
	char			kr_users_dir[PATH_MAX];
	/*
	 * The users' keys (MSG_KR_USERS, msg_users.h), owned: a daemon
	 * verifies every user with them and opens no file to do so.
	 * NULL: a user's process, which verifies only its own user (in
	 * kr_own, its file read again at most every MSG_PUBCACHE_TTL)
	 * and "@cluster"; any other name is refused unread.
	 */
	struct msg_users	*kr_users;
	/*
	 * cluster_pub, read again when "@cluster" signs with a key id
	 * that no set here holds, at most every MSG_PUBCACHE_TTL: a
	 * long-lived user process (a job manager) follows a rotation of
	 * the cluster key without a restart.  "": never.
	 */
	char			kr_cluster_pub_path[PATH_MAX];
	double			kr_cluster_pub_read;	/* now_mono() */
	struct msg_pubcache_entry kr_own;
	/*
	 * The user schemes this process accepts from users
	 * (MSG_SCHEME_BIT of USER and MUNGE; 0: USER alone), from
	 * user_auth; "@cluster" always signs under USER.  kr_munge: a
	 * user's process that has no user key seals USER messages with
	 * a MUNGE credential from the munged at kr_munge_socket, which
	 * also decodes the credentials it receives.
	 */
	unsigned		kr_user_auth;
	int			kr_munge;
	int			kr_munge_ttl;	/* seconds; 0: munged's */
	char			kr_munge_name[MSG_NAME_MAX + 1]; /* our user */
	char			kr_munge_socket[PATH_MAX];
	/*
	 * The job scheme: a key that the processes of one parallel job
	 * share and no one else holds (its clearinghouse makes it and
	 * hands it to each process it admits, cn.h).  kr_job_name is
	 * what this process claims under it.  kr_job.k_id 0: none.
	 */
	struct msg_key		kr_job;
	char			kr_job_name[MSG_NAME_MAX + 1];
};

/*
 * From now on seal and open the job scheme with this 32-byte key under
 * key id id (not 0), claiming name (msg_name_ok).  A key set before is
 * forgotten.  -1 with EINVAL.
 */
int	msg_keyring_set_job(struct msg_keyring *, uint32_t id,
	    const uint8_t key[32], const char *name);

const char	*msg_drop_name(enum msg_drop);
const char	*msg_scheme_name(enum msg_scheme);
enum msg_scheme	 msg_scheme_from_name(const char *);

int	msg_addr_from_sockaddr(struct msg_addr *, const struct sockaddr *,
	    socklen_t);
socklen_t msg_addr_to_sockaddr(const struct msg_addr *,
	    struct sockaddr_storage *);
int	msg_addr_eq(const struct msg_addr *, const struct msg_addr *);
/* 1 for the wildcard address (0.0.0.0 or ::) of a family. */
int	msg_addr_any(const struct msg_addr *);
/* "1.2.3.4:567" or "[::1]:567" */
void	msg_addr_text(const struct msg_addr *, char *, size_t);
/*
 * "HOST[:PORT]" (numeric or resolvable host; default_port if none).
 * -1 with errno, or EAI errors as EHOSTUNREACH.
 */
int	msg_addr_parse(struct msg_addr *, const char *, uint16_t default_port);
/* 1 if the host of "HOST[:PORT]" is a name, not a numeric address. */
int	msg_addr_named(const char *);
/* 1 if a is a loopback address (127.0.0.0/8, ::1, ::ffff:127.x.y.z). */
int	msg_addr_loopback(const struct msg_addr *);

/* 1 if the name may be claimed under the scheme. */
int	msg_name_ok(enum msg_scheme, const char *);

/*
 * Seals payload for dst under scheme into out.  Cluster: AEAD with the
 * current cluster key, claiming kr_cluster_name.  User: signed with the
 * user key, or, with none, with the cluster key as "@cluster".
 * -1 with errno (ENOKEY no key for the scheme, EMSGSIZE too long).
 */
int	msg_seal(struct msg_keyring *, enum msg_scheme, uint16_t handler,
	    const struct msg_addr *dst, uint64_t now_ms,
	    const void *payload, size_t len,
	    uint8_t *out, size_t outcap, size_t *outlen);

/*
 * The same, but under the cluster scheme with the key whose id is keyid
 * if the keyring has it (a reply goes out under the key its request
 * came in, so daemons part-way through a key rotation still understand
 * each other's answers).  keyid 0 means the current key.
 */
int	msg_seal_keyid(struct msg_keyring *, enum msg_scheme, uint16_t handler,
	    uint32_t keyid, const struct msg_addr *dst, uint64_t now_ms,
	    const void *payload, size_t len,
	    uint8_t *out, size_t outcap, size_t *outlen);

/*
 * Validates the header of a whole message (kind MESSAGE) without
 * verifying anything.  Returns the reason or MSG_DROP_NONE.
 */
enum msg_drop	msg_hdr_decode(const uint8_t *, size_t, struct msg_hdr *,
		    size_t *hdrlen);

/*
 * Validates, verifies and copies out the payload (at most cap bytes;
 * MSG_PAYLOAD_MAX always suffices).  Nothing beyond the fixed header is
 * interpreted before the MAC or signature has been checked.  Window,
 * replay and address checks are the endpoint's (msg.h).
 */
enum msg_drop	msg_open(struct msg_keyring *, double now_mono,
		    const uint8_t *, size_t, struct msg_hdr *,
		    uint8_t *payload, size_t cap, size_t *plen);

/*
 * Looks up the verification key for (name, key id) under USER: in
 * kr_users when the ring has them, else only our own user's file; for
 * "@cluster" an unknown id may read kr_cluster_pub_path again.  No
 * other name ever makes it open a file.
 */
const struct msg_key *msg_keyring_user_pub(struct msg_keyring *,
		    double now_mono, const char *name, uint32_t keyid);
/* Wipes the ring and frees its kr_users. */
void	msg_keyring_clear(struct msg_keyring *);
/* Clears dst, then moves src into it, leaving src zeroed. */
void	msg_keyring_move(struct msg_keyring *dst, struct msg_keyring *src);

#endif
