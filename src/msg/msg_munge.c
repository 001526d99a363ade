/* msg_munge — credentials from and to the local munged, via libmunge. */
#include "msg_munge.h"

#include <sys/stat.h>

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <munge.h>

/* A context naming our socket (and TTL); NULL with a reason. */
static munge_ctx_t
ctx_new(const char *socket, int ttl, char *why, size_t whylen)
{
	munge_ctx_t ctx;

	if ((ctx = munge_ctx_create()) == NULL) {
		snprintf(why, whylen, "munge: out of memory");
		return NULL;
	}
	if (munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS ||
	    (ttl > 0 && munge_ctx_set(ctx, MUNGE_OPT_TTL, ttl) !=
	    EMUNGE_SUCCESS)) {
		snprintf(why, whylen, "munge: %s", munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

int
msg_munge_encode(const char *socket, int ttl,
    const uint8_t hash[MSG_MUNGE_HASH], char *cred, size_t cap, size_t *len,
    char *why, size_t whylen)
{
	munge_ctx_t ctx;
	munge_err_t e;
	char *c = NULL;
	size_t n;

	if ((ctx = ctx_new(socket, ttl, why, whylen)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	e = munge_encode(&c, ctx, hash, MSG_MUNGE_HASH);
	if (e != EMUNGE_SUCCESS) {
		snprintf(why, whylen, "munged at %s: %s", socket,
		    munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) :
		    munge_strerror(e));
		munge_ctx_destroy(ctx);
		free(c);
		errno = e == EMUNGE_SOCKET ? ECONNREFUSED : EPROTO;
		return -1;
	}
	munge_ctx_destroy(ctx);
	if ((n = strlen(c)) >= cap || n > MSG_CRED_MAX) {
		snprintf(why, whylen, "munge credential of %zu bytes", n);
		free(c);
		errno = EMSGSIZE;
		return -1;
	}
	memcpy(cred, c, n + 1);
	*len = n;
	free(c);
	return 0;
}

enum msg_munge_rc
msg_munge_decode(const char *socket, const char *cred,
    uint8_t hash[MSG_MUNGE_HASH], uid_t *uid, gid_t *gid, char *why,
    size_t whylen)
{
	enum msg_munge_rc rc;
	munge_ctx_t ctx;
	munge_err_t e;
	void *buf = NULL;
	int len = 0;

	if ((ctx = ctx_new(socket, 0, why, whylen)) == NULL)
		return MSG_MUNGE_UNREACHABLE;
	e = munge_decode(cred, ctx, &buf, &len, uid, gid);
	switch (e) {
	case EMUNGE_SUCCESS:
		rc = MSG_MUNGE_OK;
		break;
	case EMUNGE_CRED_EXPIRED:
	case EMUNGE_CRED_REWOUND:
		rc = MSG_MUNGE_EXPIRED;
		break;
	case EMUNGE_CRED_REPLAYED:
		rc = MSG_MUNGE_REPLAYED;
		break;
	case EMUNGE_SOCKET:
	case EMUNGE_SNAFU:
	case EMUNGE_NO_MEMORY:
		rc = MSG_MUNGE_UNREACHABLE;
		break;
	default:
		rc = MSG_MUNGE_INVALID;
		break;
	}
	if (rc == MSG_MUNGE_OK && (buf == NULL || len != MSG_MUNGE_HASH))
		rc = MSG_MUNGE_INVALID;
	if (rc == MSG_MUNGE_OK)
		memcpy(hash, buf, MSG_MUNGE_HASH);
	else
		snprintf(why, whylen, "munged at %s: %s", socket,
		    munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) :
		    munge_strerror(e));
	free(buf);
	munge_ctx_destroy(ctx);
	return rc;
}

static int	(*names_of)(uid_t, char *, size_t);

void
msg_munge_set_names(int (*name_of)(uid_t, char *, size_t))
{
	names_of = name_of;
}

int
msg_munge_user(uid_t uid, char *buf, size_t bufsz)
{
	struct passwd pw, *res = NULL;
	char tmp[4096];

	if (names_of != NULL)
		return names_of(uid, buf, bufsz);
	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) != 0 ||
	    res == NULL || strlcpy(buf, pw.pw_name, bufsz) >= bufsz)
		return -1;
	return 0;
}

int
msg_munge_reachable(const char *socket_path)
{
	struct stat st;

	/*
	 * A socket there: munged makes it when it starts and removes it
	 * when it stops.  No connect(2): munged logs every connection
	 * that sends no request.
	 */
	return stat(socket_path, &st) == 0 && S_ISSOCK(st.st_mode);
}
