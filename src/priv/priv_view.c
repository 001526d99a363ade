/*
 * priv_view — the file system an unprivileged child sees (priv.h): an
 * empty, read-only tmpfs of its own mount namespace, into which only
 * the paths it needs are bound, each at its own path, then chroot.
 * Done as root, before the drop, which then takes the capabilities
 * that could undo it (CAP_SYS_ADMIN, CAP_SYS_CHROOT).
 */
#include "priv.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define VIEW_SECURE	(MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* 1 if path is at or below top. */
static int
inside(const char *path, const char *top)
{
	size_t n = strlen(top);

	return strncmp(path, top, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/' || (n == 1 && top[0] == '/'));
}

int
priv_view_add(struct priv_view *v, const char *path, unsigned flags)
{
	struct priv_view_path *p;
	size_t i;

	if (path[0] != '/' || strstr(path, "/../") != NULL ||
	    (strlen(path) >= 3 && strcmp(path + strlen(path) - 3,
	    "/..") == 0)) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * Seen through a folder bound already, alike: a bind of its own
	 * would pin what is there now (a socket's folder made again when
	 * its daemon restarts would be the old one here).
	 */
	for (i = 0; i < v->pv_n; i++)
		if (inside(path, v->pv_path[i].vp_path) &&
		    (v->pv_path[i].vp_flags & PRIV_VIEW_RW) ==
		    (flags & PRIV_VIEW_RW))
			return 0;
	if (v->pv_n == PRIV_VIEW_MAX) {
		errno = ENOSPC;
		return -1;
	}
	p = &v->pv_path[v->pv_n];
	if (strlcpy(p->vp_path, path, sizeof(p->vp_path)) >=
	    sizeof(p->vp_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	p->vp_flags = flags;
	v->pv_n++;
	return 0;
}

/*
 * Makes every folder of path below the view's root that is missing.
 * Only the tmpfs is written: a folder inside a path bound already is
 * the host's, there already.
 */
static int
mkdirs(char *path, size_t rootlen)
{
	char *s;

	for (s = path + rootlen + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return 0;
}

/*
 * The mount point for p under root: a folder, or an empty file; there
 * already when p is inside a path bound before.
 */
static int
mount_point(char *at, size_t rootlen, const struct stat *sb)
{
	struct stat here;
	int fd;

	if (lstat(at, &here) == 0)
		return 0;
	if (mkdirs(at, rootlen) == -1)
		return -1;
	if (S_ISDIR(sb->st_mode))
		return mkdir(at, 0755) == -1 && errno != EEXIST ? -1 : 0;
	if ((fd = open(at, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	return close(fd);
}

static int
bind_one(const char *root, const struct priv_view_path *p, char *err,
    size_t errlen)
{
	char at[PATH_MAX * 2 + 2];
	unsigned long fl = MS_BIND | MS_REMOUNT | VIEW_SECURE;
	struct stat sb;

	if (stat(p->vp_path, &sb) == -1) {
		if (errno == ENOENT && (p->vp_flags & PRIV_VIEW_OPTIONAL))
			return 0;
		snprintf(err, errlen, "%s: %s", p->vp_path, strerror(errno));
		return -1;
	}
	snprintf(at, sizeof(at), "%s%s", root, p->vp_path);
	if (mount_point(at, strlen(root), &sb) == -1) {
		snprintf(err, errlen, "a mount point for %s: %s", p->vp_path,
		    strerror(errno));
		return -1;
	}
	/* Not what is mounted below it: only what the view names. */
	if (mount(p->vp_path, at, "none", MS_BIND, NULL) == -1) {
		snprintf(err, errlen, "bind %s: %s", p->vp_path,
		    strerror(errno));
		return -1;
	}
	if (!(p->vp_flags & PRIV_VIEW_RW))
		fl |= MS_RDONLY;
	if (mount("none", at, "none", fl, NULL) == -1) {
		snprintf(err, errlen, "%s %s: %s", p->vp_flags & PRIV_VIEW_RW ?
		    "nosuid, nodev, noexec" : "read-only", p->vp_path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

int
priv_view_enter(const struct priv_view *v, char *err, size_t errlen)
{
	const char *root = v->pv_root;
	size_t order[PRIV_VIEW_MAX], i, j, k;
	struct stat sb;

	if (unshare(CLONE_NEWNS) == -1) {
		snprintf(err, errlen, "a mount namespace of its own: %s",
		    strerror(errno));
		return -1;
	}
	/* Nothing mounted here reaches the host's namespace. */
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == -1) {
		snprintf(err, errlen, "private mounts: %s%s", strerror(errno),
		    errno == EINVAL ? " (/ is not a mount: a chroot? bind "
		    "its folder onto itself first)" : "");
		return -1;
	}
	if ((mkdir(root, 0700) == -1 && errno != EEXIST) ||
	    lstat(root, &sb) == -1) {
		snprintf(err, errlen, "%s: %s", root, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != 0) {
		snprintf(err, errlen, "%s: not a folder of root's", root);
		return -1;
	}
	if (mount("cilknow-view", root, "tmpfs", VIEW_SECURE,
	    "mode=0755,size=64k") == -1) {
		snprintf(err, errlen, "tmpfs on %s: %s", root,
		    strerror(errno));
		return -1;
	}
	/* A folder before what is inside it, which would be hidden. */
	for (i = 0; i < v->pv_n; i++)
		order[i] = i;
	for (i = 1; i < v->pv_n; i++)
		for (j = i; j > 0 && strlen(v->pv_path[order[j]].vp_path) <
		    strlen(v->pv_path[order[j - 1]].vp_path); j--) {
			k = order[j];
			order[j] = order[j - 1];
			order[j - 1] = k;
		}
	for (i = 0; i < v->pv_n; i++)
		if (bind_one(root, &v->pv_path[order[i]], err, errlen) == -1)
			return -1;
	if (mount("none", root, "none", MS_REMOUNT | MS_RDONLY | VIEW_SECURE,
	    NULL) == -1) {
		snprintf(err, errlen, "read-only %s: %s", root,
		    strerror(errno));
		return -1;
	}
	if (chroot(root) == -1 || chdir("/") == -1) {
		snprintf(err, errlen, "chroot %s: %s", root, strerror(errno));
		return -1;
	}
	return 0;
}
