/* msg_keyring — filling a keyring from the configured key files. */
#include "msg_keyring.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* msg_keyring_load's loader: the file itself. */
static int
load_file(struct msg_keyset *ks, const char *key, const char *path,
    enum msg_key_type type, char *err, size_t errlen, void *arg)
{
	(void)key;
	(void)arg;
	return msg_keyset_load(ks, path, type, err, errlen);
}

static int
load_one(struct msg_keyset *ks, const struct conf *cf, const char *key,
    enum msg_key_type type, int required, msg_keyring_loader *loader,
    void *arg, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (conf_get_path(cf, key, path, sizeof(path)) == -1) {
		snprintf(err, errlen, "%s: cannot expand path", key);
		return -1;
	}
	if (loader(ks, key, path, type, err, errlen, arg) == 0)
		return 0;
	if (!required && (errno == ENOENT || errno == EACCES)) {
		err[0] = '\0';
		return 0;
	}
	return -1;
}

/* A user's process speaks with munge: as the user munged attests. */
static int
use_munge(struct msg_keyring *kr, char *err, size_t errlen)
{
	if (msg_munge_user(geteuid(), kr->kr_munge_name,
	    sizeof(kr->kr_munge_name)) == -1 ||
	    !msg_user_name_ok(kr->kr_munge_name)) {
		snprintf(err, errlen, "uid %u has no valid user name for "
		    "munge", (unsigned)geteuid());
		return -1;
	}
	kr->kr_munge = 1;
	return 0;
}

/*
 * user_auth: which user schemes this process accepts, and for a user's
 * process (MSG_KR_USER or _OPT) how it speaks for its user: in the
 * order user_auth lists them, munge if a munged answers, the user key
 * if it can be read.  A required one that neither gives names the fix.
 */
static int
user_auth(struct msg_keyring *kr, const struct conf *cf, unsigned flags,
    msg_keyring_loader *loader, void *arg, char *err, size_t errlen)
{
	const char *ua = conf_get(cf, "user_auth");
	int munge_ok = strstr(ua, "munge") != NULL;
	int user_ok = strstr(ua, "user") != NULL;
	int reachable;

	kr->kr_user_auth = (user_ok ? 1u << MSG_SCHEME_USER : 0) |
	    (munge_ok ? 1u << MSG_SCHEME_MUNGE : 0);
	if (conf_get_path(cf, "munge_socket", kr->kr_munge_socket,
	    sizeof(kr->kr_munge_socket)) == -1) {
		snprintf(err, errlen, "munge_socket: cannot expand path");
		return -1;
	}
	if ((flags & (MSG_KR_USER | MSG_KR_USER_OPT)) == 0)
		return 0;
	reachable = munge_ok && msg_munge_reachable(kr->kr_munge_socket);
	if (reachable && strncmp(ua, "munge", 5) == 0)
		return use_munge(kr, err, errlen);
	if (user_ok && load_one(&kr->kr_user, cf, "user_key", MSG_KEY_USER,
	    (flags & MSG_KR_USER) != 0 && !munge_ok, loader, arg, err,
	    errlen) == -1)
		return -1;
	if (kr->kr_user.ks_n > 0)
		return 0;
	if (reachable)
		return use_munge(kr, err, errlen);
	if ((flags & MSG_KR_USER) != 0) {
		snprintf(err, errlen, "user_auth = %s: no munged answers at "
		    "%s (munge_socket): install and start munge (apt-get "
		    "install munge; systemctl start munge, with the "
		    "cluster's /etc/munge/munge.key)%s", ua,
		    kr->kr_munge_socket, user_ok ? ", or make a user key "
		    "with 'CilkKey generate-user'" : "");
		return -1;
	}
	return 0;
}

int
msg_keyring_load(struct msg_keyring *kr, const struct conf *cf,
    unsigned flags, const char *cluster_name, char *err, size_t errlen)
{
	return msg_keyring_load_with(kr, cf, flags, cluster_name, load_file,
	    NULL, err, errlen);
}

int
msg_keyring_load_with(struct msg_keyring *kr, const struct conf *cf,
    unsigned flags, const char *cluster_name, msg_keyring_loader *loader,
    void *arg, char *err, size_t errlen)
{
	memset(kr, 0, sizeof(*kr));
	if (cluster_name != NULL &&
	    !msg_name_ok(MSG_SCHEME_CLUSTER, cluster_name)) {
		snprintf(err, errlen, "bad principal name '%s'", cluster_name);
		return -1;
	}
	strlcpy(kr->kr_cluster_name, cluster_name ? cluster_name :
	    MSG_CLUSTER_NAME, sizeof(kr->kr_cluster_name));
	if (conf_get_path(cf, "user_keys", kr->kr_users_dir,
	    sizeof(kr->kr_users_dir)) == -1) {
		snprintf(err, errlen, "user_keys: cannot expand path");
		return -1;
	}
	if ((flags & (MSG_KR_CLUSTER | MSG_KR_CLUSTER_OPT)) &&
	    load_one(&kr->kr_cluster, cf, "cluster_key", MSG_KEY_CLUSTER,
	    (flags & MSG_KR_CLUSTER) != 0, loader, arg, err, errlen) == -1)
		goto fail;
	if (load_one(&kr->kr_cluster_pub, cf, "cluster_pub",
	    MSG_KEY_CLUSTER_PUB, 0, loader, arg, err, errlen) == -1)
		goto fail;
	/* Read again by msg_keyring_user_pub (msg_codec.h). */
	(void)conf_get_path(cf, "cluster_pub", kr->kr_cluster_pub_path,
	    sizeof(kr->kr_cluster_pub_path));
	if (user_auth(kr, cf, flags, loader, arg, err, errlen) == -1)
		goto fail;
	/* Public: read here, by whoever verifies, not through loader. */
	if ((flags & MSG_KR_USERS) &&
	    (kr->kr_users = msg_users_load(kr->kr_users_dir)) == NULL) {
		snprintf(err, errlen, "user_keys %s: out of memory",
		    kr->kr_users_dir);
		goto fail;
	}
	return 0;
 fail:
	msg_keyring_clear(kr);
	return -1;
}

const char *
msg_keyring_user_name(const struct msg_keyring *kr)
{
	if (kr->kr_munge)
		return kr->kr_munge_name;
	return kr->kr_user.ks_n > 0 ? kr->kr_user.ks_key[0].k_name : "";
}

void
msg_keyring_no_user(const struct conf *cf, char *err, size_t errlen)
{
	const char *ua = conf_get(cf, "user_auth");

	if (strstr(ua, "munge") == NULL)
		snprintf(err, errlen, "no user key (user_key = %s): make one "
		    "with 'CilkKey generate-user'", conf_get(cf, "user_key"));
	else
		snprintf(err, errlen, "user_auth = %s, but no munged answers "
		    "at %s (munge_socket)%s%s%s: start munge (apt-get install "
		    "munge; systemctl start munge, with the cluster's "
		    "/etc/munge/munge.key)", ua, conf_get(cf, "munge_socket"),
		    strstr(ua, "user") ? " and user_key " : "",
		    strstr(ua, "user") ? conf_get(cf, "user_key") : "",
		    strstr(ua, "user") ? " cannot be read" : "");
}

int
msg_keyring_pub_matches(const struct msg_keyring *kr)
{
	return kr->kr_cluster.ks_n == 0 || kr->kr_cluster_pub.ks_n == 0 ||
	    memcmp(kr->kr_cluster.ks_key[0].k_pk,
	    kr->kr_cluster_pub.ks_key[0].k_pk,
	    sizeof(kr->kr_cluster.ks_key[0].k_pk)) == 0;
}
