/* dcheck — ownership and permissions of what the daemons trust. */
#include "dcheck.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg_keys.h"

#define DCHECK_PUB_MAX	4096	/* public key files looked at */
#define DCHECK_SEEN_MAX	16	/* folders above, reported once each */

struct dcheck_seen {
	char	ds_dir[DCHECK_SEEN_MAX][PATH_MAX];
	int	ds_n;
};

static int
seen_before(struct dcheck_seen *sn, const char *dir)
{
	int i;

	for (i = 0; i < sn->ds_n; i++)
		if (strcmp(sn->ds_dir[i], dir) == 0)
			return 1;
	if (sn->ds_n < DCHECK_SEEN_MAX)
		strlcpy(sn->ds_dir[sn->ds_n++], dir, PATH_MAX);
	return 0;
}

static enum dcheck_level
dcheck_say(enum dcheck_level worst, enum dcheck_level level,
    dcheck_report *report, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static enum dcheck_level
dcheck_say(enum dcheck_level worst, enum dcheck_level level,
    dcheck_report *report, void *arg, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report(level, msg, arg);
	return level > worst ? level : worst;
}

static int
owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/*
 * One node of the path: owner and write bits.  above: a folder above
 * the thing named by what.
 */
static enum dcheck_level
check_node(const char *path, const struct stat *st, const char *what,
    int above, dcheck_report *report, void *arg)
{
	enum dcheck_level worst = DCHECK_UNDEF;
	int dir = S_ISDIR(st->st_mode);

	if (!owner_ok(st->st_uid))
		worst = dcheck_say(worst, DCHECK_UNSAFE, report, arg,
		    "%s: %s%s is owned by uid %lu, neither root nor us "
		    "(uid %lu), who could replace %s; chown root it", path,
		    above ? "a folder above the " : "the ", what,
		    (unsigned long)st->st_uid, (unsigned long)geteuid(),
		    above ? "what is below" : "it");
	/* In a sticky folder only a file's owner may rename or remove it. */
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    !(dir && (st->st_mode & S_ISVTX)))
		worst = dcheck_say(worst, DCHECK_UNSAFE, report, arg,
		    "%s: %s%s is writable by group or others (mode %04o), "
		    "who could replace %s; chmod go-w it", path,
		    above ? "a folder above the " : "the ", what,
		    (unsigned)(st->st_mode & 07777),
		    above || dir ? "what is in it" : "it");
	return worst;
}

/* The node at path; with ancestors, every folder above it too. */
static enum dcheck_level
check_path(struct dcheck_seen *sn, const char *path, const char *what,
    int ancestors, dcheck_report *report, void *arg)
{
	enum dcheck_level worst = DCHECK_UNDEF, l;
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (lstat(path, &st) == -1)
		return dcheck_say(worst, DCHECK_WARN, report, arg,
		    "%s: %s: %s", path, what, strerror(errno));
	if (S_ISLNK(st.st_mode) && stat(path, &st) == -1)
		return dcheck_say(worst, DCHECK_WARN, report, arg,
		    "%s: %s is a dangling symbolic link", path, what);
	if (!(S_ISDIR(st.st_mode) && seen_before(sn, path)))
		worst = check_node(path, &st, what, 0, report, arg);
	if (!ancestors || strlcpy(dir, path, sizeof(dir)) >= sizeof(dir))
		return worst;
	/* Every folder above, up to the root (or the cwd if relative). */
	while ((slash = strrchr(dir, '/')) != NULL) {
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(dir, &st) == -1)
			break;
		if (!seen_before(sn, dir) && (l = check_node(dir, &st, what, 1,
		    report, arg)) > worst)
			worst = l;
		if (strcmp(dir, "/") == 0)
			break;
	}
	return worst;
}

enum dcheck_level
dcheck_path(const char *path, const char *what, dcheck_report *report,
    void *arg)
{
	struct dcheck_seen sn;

	sn.ds_n = 0;
	return check_path(&sn, path, what, 1, report, arg);
}

/* Each NAME.pub: safe, a user's public key, and NAME's. */
static enum dcheck_level
check_users(struct dcheck_seen *sn, const char *dir, dcheck_report *report,
    void *arg)
{
	enum dcheck_level worst, l;
	struct msg_keyset ks;
	struct dirent *de;
	char path[PATH_MAX + 300], name[MSG_NAME_MAX + 8], err[512];
	size_t len, n = 0;
	DIR *d;

	if ((worst = check_path(sn, dir, "user_keys folder", 1, report, arg)) !=
	    0 &&
	    access(dir, F_OK) == -1)
		return worst;
	if ((d = opendir(dir)) == NULL)
		return dcheck_say(worst, DCHECK_WARN, report, arg,
		    "%s: user_keys: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL && n++ < DCHECK_PUB_MAX) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || len < 5 ||
		    strcmp(de->d_name + len - 4, ".pub") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 4),
		    de->d_name);
		/*
		 * The folders above are checked already.  The key's own
		 * checks repeat what this says: one line is enough.
		 */
		if ((l = check_path(sn, path, "public key", 0, report,
		    arg)) != 0) {
			if (l > worst)
				worst = l;
			continue;
		}
		if (!msg_user_name_ok(name)) {
			worst = dcheck_say(worst, DCHECK_WARN, report, arg,
			    "%s: '%s' is not a valid user name; the file "
			    "is never used", path, name);
			continue;
		}
		if (msg_keyset_load(&ks, path, MSG_KEY_USER_PUB, err,
		    sizeof(err)) == -1) {
			worst = dcheck_say(worst, DCHECK_WARN, report, arg,
			    "%s; %s's jobs will be refused", err, name);
			continue;
		}
		if (strcmp(ks.ks_key[0].k_name, name) != 0)
			worst = dcheck_say(worst, DCHECK_WARN, report, arg,
			    "%s: holds the key of user '%s', not of '%s'; "
			    "%s's jobs will be refused", path,
			    ks.ks_key[0].k_name, name, name);
		msg_keyset_clear(&ks);
	}
	closedir(d);
	return worst;
}

enum dcheck_level
dcheck_files(const struct conf *cf, int cluster, dcheck_report *report,
    void *arg)
{
	enum dcheck_level worst = DCHECK_UNDEF, l;
	struct dcheck_seen *sn;
	char path[PATH_MAX];

	if ((sn = calloc(1, sizeof(*sn))) == NULL)
		return dcheck_say(worst, DCHECK_UNSAFE, report, arg,
		    "out of memory");
	if (cluster && conf_get_path(cf, "cluster_key", path,
	    sizeof(path)) == 0)
		worst = check_path(sn, path, "cluster key", 1, report, arg);
	if (conf_get_path(cf, "cluster_pub", path, sizeof(path)) == 0 &&
	    access(path, F_OK) == 0 &&
	    (l = check_path(sn, path, "cluster public key", 1,
	    report, arg)) >
	    worst)
		worst = l;
	if (conf_get_path(cf, "user_keys", path, sizeof(path)) == 0 &&
	    (l = check_users(sn, path, report, arg)) > worst)
		worst = l;
	free(sn);
	return worst;
}
