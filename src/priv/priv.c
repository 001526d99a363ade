/* priv — the service user: looking it up, becoming it, checking that. */
#include "priv.h"

#include <sys/prctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRIV_PWBUF_MIN	16384
#define PRIV_PWBUF_MAX	(1024 * 1024)	/* a group with many members */

/* getpwnam_r and getgrnam_r say "no such entry" in several ways. */
static int
not_found(int rc)
{
	return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF ||
	    rc == EPERM;
}

/* 0 found, 1 not found, -1 error (errno). */
static int
lookup_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	size_t sz = PRIV_PWBUF_MIN;
	char *buf = NULL, *nbuf;
	int rc;

	for (;;) {
		if ((nbuf = realloc(buf, sz)) == NULL) {
			free(buf);
			return -1;
		}
		buf = nbuf;
		if ((rc = getpwnam_r(name, &pw, buf, sz, &res)) != ERANGE ||
		    sz >= PRIV_PWBUF_MAX)
			break;
		sz *= 2;
	}
	if (res != NULL) {
		*uid = pw.pw_uid;
		*gid = pw.pw_gid;
	}
	free(buf);
	if (res != NULL)
		return 0;
	if (not_found(rc))
		return 1;
	errno = rc;
	return -1;
}

/* 0 found, 1 not found, -1 error (errno). */
static int
lookup_group(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	size_t sz = PRIV_PWBUF_MIN;
	char *buf = NULL, *nbuf;
	int rc;

	for (;;) {
		if ((nbuf = realloc(buf, sz)) == NULL) {
			free(buf);
			return -1;
		}
		buf = nbuf;
		if ((rc = getgrnam_r(name, &gr, buf, sz, &res)) != ERANGE ||
		    sz >= PRIV_PWBUF_MAX)
			break;
		sz *= 2;
	}
	if (res != NULL)
		*gid = gr.gr_gid;
	free(buf);
	if (res != NULL)
		return 0;
	if (not_found(rc))
		return 1;
	errno = rc;
	return -1;
}

static void
add_group(struct priv_user *pu, gid_t g)
{
	size_t i;

	for (i = 0; i < pu->pu_ngroups; i++)
		if (pu->pu_groups[i] == g)
			return;
	pu->pu_groups[pu->pu_ngroups++] = g;
}

int
priv_lookup(struct priv_user *pu, const char *user,
    const char *const *extra, size_t nextra, char *err, size_t errlen)
{
	size_t i, off;
	gid_t g;
	int rc;

	memset(pu, 0, sizeof(*pu));
	if (errlen > 0)
		err[0] = '\0';
	if (user == NULL)
		user = PRIV_USER_DEFAULT;
	if (*user == '\0' || strlen(user) >= sizeof(pu->pu_name)) {
		snprintf(err, errlen, "service user '%s': not a user name",
		    user);
		return -1;
	}
	if (nextra >= PRIV_GROUPS_MAX) {
		snprintf(err, errlen, "service user %s: more than %d extra "
		    "groups", user, PRIV_GROUPS_MAX - 1);
		return -1;
	}
	if ((rc = lookup_user(user, &pu->pu_uid, &pu->pu_gid)) == -1) {
		snprintf(err, errlen, "service user %s: cannot look it up: %s",
		    user, strerror(errno));
		return -1;
	}
	/* Fail closed: without the user, nothing may run. */
	if (rc == 1) {
		snprintf(err, errlen, "service user %s does not exist; create "
		    "it: %s %s", user, PRIV_USERADD, user);
		return -1;
	}
	if (pu->pu_uid == 0 || pu->pu_gid == 0) {
		snprintf(err, errlen, "service user %s has uid %lu and gid "
		    "%lu: root's would keep every privilege; name an "
		    "unprivileged system user (service_user)", user,
		    (unsigned long)pu->pu_uid, (unsigned long)pu->pu_gid);
		return -1;
	}
	strlcpy(pu->pu_name, user, sizeof(pu->pu_name));
	add_group(pu, pu->pu_gid);
	for (i = 0; i < nextra; i++) {
		if ((rc = lookup_group(extra[i], &g)) == -1) {
			snprintf(err, errlen, "group %s: cannot look it up: %s",
			    extra[i], strerror(errno));
			return -1;
		}
		if (rc == 1) {
			/* A warning: the caller logs it and goes on. */
			off = strlen(err);
			snprintf(err + off, errlen - off, "%sgroup %s does not "
			    "exist: %s runs without it", off ? "; " : "",
			    extra[i], user);
			continue;
		}
		if (g == 0) {
			snprintf(err, errlen, "group %s is gid 0: root's group "
			    "is not for a service user", extra[i]);
			return -1;
		}
		add_group(pu, g);
	}
	return 0;
}

/*
 * The permitted, effective and ambient capability sets, ORed, from
 * /proc/self/status.  -1 if it cannot be read or lacks a line.
 */
static int
caps_left(unsigned long long *any)
{
	static const char *const keys[] = { "CapPrm:", "CapEff:", "CapAmb:" };
	char line[256];
	unsigned long long v;
	FILE *fp;
	size_t i;
	int seen = 0;

	*any = 0;
	if ((fp = fopen("/proc/self/status", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0 &&
			    sscanf(line + strlen(keys[i]), "%llx", &v) == 1) {
				*any |= v;
				seen |= 1 << i;
			}
	fclose(fp);
	return seen == 7 ? 0 : -1;
}

/* The supplementary groups are exactly pu's (in any order). */
static int
groups_are(const struct priv_user *pu)
{
	gid_t now[PRIV_GROUPS_MAX];
	int n, i;
	size_t j;

	if ((n = getgroups(PRIV_GROUPS_MAX, now)) == -1 ||
	    (size_t)n != pu->pu_ngroups)
		return 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < pu->pu_ngroups; j++)
			if (now[i] == pu->pu_groups[j])
				break;
		if (j == pu->pu_ngroups)
			return 0;
	}
	return 1;
}

/* After the drop: trust nothing, look. */
static int
verify(const struct priv_user *pu, char *err, size_t errlen)
{
	unsigned long long caps;
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &s) == -1 || getresgid(&rg, &eg, &sg) == -1) {
		snprintf(err, errlen, "getresuid: %s", strerror(errno));
		return -1;
	}
	if (r != pu->pu_uid || e != pu->pu_uid || s != pu->pu_uid ||
	    rg != pu->pu_gid || eg != pu->pu_gid || sg != pu->pu_gid) {
		snprintf(err, errlen, "after the drop the ids are uid "
		    "%lu/%lu/%lu gid %lu/%lu/%lu, not %s's", (unsigned long)r,
		    (unsigned long)e, (unsigned long)s, (unsigned long)rg,
		    (unsigned long)eg, (unsigned long)sg, pu->pu_name);
		return -1;
	}
	if (!groups_are(pu)) {
		snprintf(err, errlen, "after the drop the supplementary "
		    "groups are not %s's", pu->pu_name);
		return -1;
	}
	if (setuid(0) != -1 || setgid(0) != -1) {
		snprintf(err, errlen, "after the drop root came back "
		    "(setuid(0) succeeded)");
		return -1;
	}
	if (caps_left(&caps) == -1) {
		snprintf(err, errlen, "cannot verify the drop: /proc/self/"
		    "status has no capability sets");
		return -1;
	}
	if (caps != 0) {
		snprintf(err, errlen, "after the drop capabilities are left "
		    "(%llx)", caps);
		return -1;
	}
	return 0;
}

int
priv_drop(const struct priv_user *pu, char *err, size_t errlen)
{
	uid_t r, e, s;

	if (errlen > 0)
		err[0] = '\0';
	if (getresuid(&r, &e, &s) == -1) {
		snprintf(err, errlen, "getresuid: %s", strerror(errno));
		return -1;
	}
	if (r != 0 && e != 0 && s != 0)
		return 0;	/* not root: nothing to drop */
	if (pu->pu_uid == 0 || pu->pu_gid == 0 || pu->pu_ngroups == 0 ||
	    pu->pu_ngroups > PRIV_GROUPS_MAX) {
		snprintf(err, errlen, "refusing to drop to uid %lu gid %lu",
		    (unsigned long)pu->pu_uid, (unsigned long)pu->pu_gid);
		return -1;
	}
	/* Groups first: afterwards we would no longer be allowed. */
	if (setgroups(pu->pu_ngroups, pu->pu_groups) == -1) {
		snprintf(err, errlen, "setgroups: %s", strerror(errno));
		return -1;
	}
	if (setresgid(pu->pu_gid, pu->pu_gid, pu->pu_gid) == -1) {
		snprintf(err, errlen, "setresgid %lu: %s",
		    (unsigned long)pu->pu_gid, strerror(errno));
		return -1;
	}
	if (setresuid(pu->pu_uid, pu->pu_uid, pu->pu_uid) == -1) {
		snprintf(err, errlen, "setresuid %lu: %s",
		    (unsigned long)pu->pu_uid, strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		snprintf(err, errlen, "PR_SET_NO_NEW_PRIVS: %s",
		    strerror(errno));
		return -1;
	}
	return verify(pu, err, errlen);
}

int
priv_have_any(void)
{
	unsigned long long caps;
	gid_t groups[NGROUPS_MAX];
	uid_t r, e, s;
	gid_t rg, eg, sg;
	int n, i;

	if (getresuid(&r, &e, &s) == -1 || getresgid(&rg, &eg, &sg) == -1)
		return 1;
	if (r == 0 || e == 0 || s == 0 || rg == 0 || eg == 0 || sg == 0)
		return 1;
	if ((n = getgroups(NGROUPS_MAX, groups)) == -1)
		return 1;
	for (i = 0; i < n; i++)
		if (groups[i] == 0)
			return 1;
	if (caps_left(&caps) == -1 || caps != 0)
		return 1;
	return 0;
}

/* May pu search the folder st describes? */
static int
may_search(const struct priv_user *pu, const struct stat *st)
{
	size_t i;

	if (st->st_uid == pu->pu_uid)
		return (st->st_mode & S_IXUSR) != 0;
	for (i = 0; i < pu->pu_ngroups; i++)
		if (st->st_gid == pu->pu_groups[i])
			return (st->st_mode & S_IXGRP) != 0;
	return (st->st_mode & S_IXOTH) != 0;
}

/* -1 with err when pu may not search the folder dir. */
static int
search_ok(const struct priv_user *pu, const char *path, const char *dir,
    char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    may_search(pu, &st))
		return 0;	/* what is missing is made or reported later */
	snprintf(err, errlen, "%s: the service user %s cannot reach it: %s "
	    "is mode %04o, owner uid %lu; chmod o+x it", path, pu->pu_name,
	    dir, (unsigned)(st.st_mode & 07777), (unsigned long)st.st_uid);
	return -1;
}

int
priv_reach(const struct priv_user *pu, const char *path, char *err,
    size_t errlen)
{
	char dir[PATH_MAX], *p, c;

	if (path[0] != '/' || strlcpy(dir, path, sizeof(dir)) >= sizeof(dir)) {
		snprintf(err, errlen, "%s: not an absolute path", path);
		return -1;
	}
	if (search_ok(pu, path, "/", err, errlen) == -1)
		return -1;
	/* Every folder on the way down: "/a", "/a/b", ..., path itself. */
	for (p = dir + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (p > dir + 1 && search_ok(pu, path, dir, err, errlen) == -1)
			return -1;
		*p = c;
		if (c == '\0')
			return 0;
	}
}
