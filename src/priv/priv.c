/* priv — the service user: looking it up, becoming it, checking that. */
#include "priv.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRIV_PWBUF_MIN	16384
#define PRIV_PWBUF_MAX	(1024 * 1024)

/* getpwnam_r says "no such entry" in several ways. */
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

int
priv_lookup(struct priv_user *pu, const char *user, char *err, size_t errlen)
{
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
	return 0;
}

/*
 * The permitted, effective and ambient capability sets, and with
 * bounding the bounding set (full in any ordinary process), ORed, as
 * the kernel tells them (capget, prctl): no file is read, so it also
 * answers in an engine's view without /proc.  -1 if it cannot tell.
 */
static int
caps_left(unsigned long long *any, int bounding)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int cap, rc;

	*any = 0;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) == -1)
		return -1;
	*any = (unsigned long long)(data[0].permitted | data[0].effective) |
	    (unsigned long long)(data[1].permitted | data[1].effective) << 32;
	for (cap = 0; cap <= 63; cap++) {
		if ((rc = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0,
		    0)) == -1)
			break;		/* EINVAL: past the kernel's last */
		if (rc == 1)
			*any |= 1ULL << cap;
		if (!bounding)
			continue;
		if ((rc = prctl(PR_CAPBSET_READ, cap, 0, 0, 0)) == -1)
			return -1;
		if (rc == 1)
			*any |= 1ULL << cap;
	}
	return cap > 0 ? 0 : -1;
}

/* No supplementary group: the primary one is all a service needs. */
static int
no_groups(void)
{
	gid_t g;

	return getgroups(1, &g) == 0;
}

/* 1 once the bounding set is empty (drop_bounding). */
static int bounding_empty;

/*
 * Empties the bounding set while CAP_SETPCAP is ours: nothing exec'd
 * later could gain a capability back, whatever it is.  A service
 * manager may have taken CAP_SETPCAP away already (the broker's unit
 * bounds its capabilities): then what is left stays in the bounding
 * set, and PR_SET_NO_NEW_PRIVS alone keeps an exec from gaining it.
 */
static int
drop_bounding(char *err, size_t errlen)
{
	int cap;

	bounding_empty = 0;
	for (cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 0)
			continue;	/* not in it */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1) {
			if (errno == EINVAL)	/* past the kernel's last */
				break;
			if (errno == EPERM)	/* no CAP_SETPCAP */
				return 0;
			snprintf(err, errlen, "PR_CAPBSET_DROP %d: %s", cap,
			    strerror(errno));
			return -1;
		}
	}
	bounding_empty = 1;
	return 0;
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
	if (!no_groups()) {
		snprintf(err, errlen, "after the drop supplementary groups "
		    "are left");
		return -1;
	}
	if (setuid(0) != -1 || setgid(0) != -1) {
		snprintf(err, errlen, "after the drop root came back "
		    "(setuid(0) succeeded)");
		return -1;
	}
	if (caps_left(&caps, bounding_empty) == -1) {
		snprintf(err, errlen, "cannot verify the drop: the kernel "
		    "does not tell the capability sets (%s)",
		    strerror(errno));
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
	if (pu->pu_uid == 0 || pu->pu_gid == 0) {
		snprintf(err, errlen, "refusing to drop to uid %lu gid %lu",
		    (unsigned long)pu->pu_uid, (unsigned long)pu->pu_gid);
		return -1;
	}
	/* Groups and bounding set first: afterwards we may not. */
	if (setgroups(0, NULL) == -1) {
		snprintf(err, errlen, "setgroups: %s", strerror(errno));
		return -1;
	}
	if (drop_bounding(err, errlen) == -1)
		return -1;
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
	if (caps_left(&caps, 0) == -1 || caps != 0)
		return 1;
	return 0;
}

/* May pu search the folder st describes? */
static int
may_search(const struct priv_user *pu, const struct stat *st)
{
	if (st->st_uid == pu->pu_uid)
		return (st->st_mode & S_IXUSR) != 0;
	if (st->st_gid == pu->pu_gid)
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
