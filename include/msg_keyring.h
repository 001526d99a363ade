/* msg_keyring — filling a keyring from the configured key files. */
#ifndef CILKNOW_MSG_KEYRING_H
#define CILKNOW_MSG_KEYRING_H

#include <stddef.h>

#include "conf.h"
#include "msg_codec.h"

#define MSG_KR_CLUSTER		0x1	/* cluster secret key required */
#define MSG_KR_CLUSTER_OPT	0x2	/* cluster secret key if readable */
#define MSG_KR_USER		0x4	/* user secret key required */
#define MSG_KR_USER_OPT		0x8	/* user secret key if present */
#define MSG_KR_USERS		0x10	/* every user's public key, in kr_users */

/*
 * Loads cluster_key, cluster_pub (always optional), user_key and the
 * user_keys folder as flags ask (MSG_KR_USERS: the folder's keys into
 * memory, msg_users_load, for a daemon that verifies any user; without
 * it only the path is kept, and only our own user's file is ever read:
 * msg_keyring_user_pub); cluster_name is what this process
 * claims under the cluster scheme.  An optional key that is missing or
 * unreadable is skipped, but one with unsafe permissions is an error:
 * fail closed.  -1 with the reason in err.
 */
int	msg_keyring_load(struct msg_keyring *, const struct conf *,
	    unsigned flags, const char *cluster_name, char *err, size_t errlen);

/*
 * One key file for msg_keyring_load_with: conf_key names it ("cluster_key",
 * "cluster_pub", "user_key"), path is where the configuration says it
 * is; the contract of msg_keyset_load, errno ENOENT or EACCES included.
 */
typedef int	msg_keyring_loader(struct msg_keyset *, const char *conf_key,
		    const char *path, enum msg_key_type, char *err,
		    size_t errlen, void *arg);
/*
 * msg_keyring_load with the key files read by loader: a privileged
 * process reads them, its unprivileged child parses what it was sent
 * (priv.h).  msg_keyring_load is this with msg_keyset_load.
 */
int	msg_keyring_load_with(struct msg_keyring *, const struct conf *,
	    unsigned flags, const char *cluster_name, msg_keyring_loader *,
	    void *arg, char *err, size_t errlen);

/*
 * The user this process speaks for under the user scheme: the munged's
 * uid's name, or the user key's; "" if it can speak for none.
 */
const char *msg_keyring_user_name(const struct msg_keyring *);
/* Why it speaks for none, and the fix, for a tool's error message. */
void	msg_keyring_no_user(const struct conf *, char *err, size_t errlen);

/*
 * 1 unless the keyring holds a cluster key and cluster_pub whose current
 * keys differ: what this daemon signs, users could not verify.
 */
int	msg_keyring_pub_matches(const struct msg_keyring *);

#endif
