/* msg_users — users' public keys in memory; see include/msg_users.h. */
#include "msg_users.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct msg_users {
	struct msg_keyset	*mu_user;	/* sorted by name */
	size_t			 mu_n;
	size_t			 mu_cap;
};

static int
by_name(const void *a, const void *b)
{
	const struct msg_keyset *x = a, *y = b;

	return strcmp(x->ks_key[0].k_name, y->ks_key[0].k_name);
}

/* One refused file: logged while few, counted always. */
static void
refuse(size_t *refused, const char *why)
{
	if ((*refused)++ < MSG_USERS_LOG_MAX)
		log_warnx("user_keys: %s; refused", why);
}

struct msg_users *
msg_users_load(const char *dir)
{
	struct msg_users *mu;
	struct msg_keyset ks, *grown;
	struct dirent *de;
	char path[PATH_MAX + MSG_NAME_MAX + 8], name[MSG_NAME_MAX + 1];
	char err[PATH_MAX + 600];
	size_t refused = 0, over = 0, len;
	DIR *d;

	if ((mu = calloc(1, sizeof(*mu))) == NULL)
		return NULL;
	if (dir[0] == '\0')
		return mu;
	if ((d = opendir(dir)) == NULL) {
		log_warning("user_keys %s: %s; no user's key loaded", dir,
		    strerror(errno));
		return mu;
	}
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 ||
		    strcmp(de->d_name + len - 4, ".pub") != 0)
			continue;	/* not a key file */
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		name[0] = '\0';
		if (len - 4 <= MSG_NAME_MAX) {
			memcpy(name, de->d_name, len - 4);
			name[len - 4] = '\0';
		}
		if (!msg_user_name_ok(name)) {
			snprintf(err, sizeof(err), "%s: not a valid user "
			    "name", path);
			refuse(&refused, err);
			continue;
		}
		if (mu->mu_n == MSG_USERS_MAX) {
			over++;		/* not even opened */
			continue;
		}
		if (msg_keyset_load(&ks, path, MSG_KEY_USER_PUB, err,
		    sizeof(err)) == -1) {
			refuse(&refused, err);
			continue;
		}
		if (strcmp(ks.ks_key[0].k_name, name) != 0) {
			snprintf(err, sizeof(err), "%s: holds the key of user "
			    "'%s'", path, ks.ks_key[0].k_name);
			refuse(&refused, err);
			continue;
		}
		if (mu->mu_n == mu->mu_cap) {
			size_t cap = mu->mu_cap ? 2 * mu->mu_cap : 64;

			if ((grown = reallocarray(mu->mu_user, cap,
			    sizeof(*grown))) == NULL) {
				closedir(d);
				msg_users_free(mu);
				errno = ENOMEM;
				return NULL;
			}
			mu->mu_user = grown;
			mu->mu_cap = cap;
		}
		mu->mu_user[mu->mu_n++] = ks;
	}
	closedir(d);
	if (mu->mu_n > 1)
		qsort(mu->mu_user, mu->mu_n, sizeof(*mu->mu_user), by_name);
	if (refused > MSG_USERS_LOG_MAX)
		log_warning("user_keys %s: %zu more files refused", dir,
		    refused - MSG_USERS_LOG_MAX);
	if (over > 0)
		log_warning("user_keys %s: %zu users' keys not loaded: at most "
		    "%d are held", dir, over, MSG_USERS_MAX);
	log_info("user_keys %s: %zu %s loaded, %zu refused", dir, mu->mu_n,
	    mu->mu_n == 1 ? "user's key" : "users' keys", refused + over);
	return mu;
}

const struct msg_key *
msg_users_find(const struct msg_users *mu, const char *name, uint32_t keyid)
{
	const struct msg_keyset *ks;
	struct msg_keyset want;
	int i;

	if (mu == NULL || mu->mu_n == 0 ||
	    strlen(name) >= sizeof(want.ks_key[0].k_name))
		return NULL;
	strlcpy(want.ks_key[0].k_name, name, sizeof(want.ks_key[0].k_name));
	if ((ks = bsearch(&want, mu->mu_user, mu->mu_n, sizeof(*ks),
	    by_name)) == NULL)
		return NULL;
	for (i = 0; i < ks->ks_n; i++)
		if (ks->ks_key[i].k_id == keyid)
			return &ks->ks_key[i];
	return NULL;
}

size_t
msg_users_count(const struct msg_users *mu)
{
	return mu != NULL ? mu->mu_n : 0;
}

void
msg_users_free(struct msg_users *mu)
{
	if (mu == NULL)
		return;
	free(mu->mu_user);
	free(mu);
}
