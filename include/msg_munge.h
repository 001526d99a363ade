/*
 * msg_munge — the MUNGE side of the `munge` user scheme: a credential
 * minted by the local munged for this process's uid, carrying a hash
 * of the message it authorises, and its decoding by the receiver's
 * local munged (which applies the credential's TTL and its replay
 * cache).  A thin layer over libmunge: no key material of ours, no
 * reimplementation.  The wire format is in cilknow-protocol(7).
 */
#ifndef CILKNOW_MSG_MUNGE_H
#define CILKNOW_MSG_MUNGE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define MSG_CRED_MAX		1024	/* bytes of one base64 credential */
#define MSG_MUNGE_HASH		32	/* what a credential carries */
#define MSG_MUNGE_SOCKET	"/run/munge/munge.socket.2"

enum msg_munge_rc {
	MSG_MUNGE_OK = 0,
	MSG_MUNGE_EXPIRED,	/* TTL passed, or minted in the future */
	MSG_MUNGE_REPLAYED,	/* this munged decoded it before */
	MSG_MUNGE_INVALID,	/* not a credential of our munge key */
	MSG_MUNGE_UNREACHABLE	/* no munged at the socket */
};

/*
 * Mints a credential for hash with the munged at socket (ttl 0: its
 * default): NUL-terminated base64 into cred (cap bytes), its length in
 * *len.  -1 with a reason in why (errno ECONNREFUSED when no munged
 * answers, EMSGSIZE when it does not fit).
 */
int	msg_munge_encode(const char *socket, int ttl,
	    const uint8_t hash[MSG_MUNGE_HASH], char *cred, size_t cap,
	    size_t *len, char *why, size_t whylen);
/*
 * Decodes a NUL-terminated credential with the munged at socket: on
 * MSG_MUNGE_OK the uid and gid munged attests and the hash it carried
 * (a payload of another length is INVALID).  why says more.
 */
enum msg_munge_rc msg_munge_decode(const char *socket, const char *cred,
	    uint8_t hash[MSG_MUNGE_HASH], uid_t *uid, gid_t *gid, char *why,
	    size_t whylen);
/* The user name of uid into buf (MSG_NAME_MAX + 1); -1 if none. */
int	msg_munge_user(uid_t uid, char *buf, size_t bufsz);
/*
 * Who answers msg_munge_user from now on (NULL: the C library): an
 * engine whose view holds no /etc asks its parent (priv_names.c).
 */
void	msg_munge_set_names(int (*name_of)(uid_t, char *, size_t));
/* 1 if munged's socket is there (a stat(2), no connection). */
int	msg_munge_reachable(const char *socket);

#endif
