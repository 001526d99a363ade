/*
 * priv_view_test — the file system an unprivileged child sees: paths
 * refused when added, and, as root, a child that enters a view sees
 * what was bound (read-only but the one read-write) and nothing else,
 * while this process's mounts stay as they were.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "priv.h"
#include "tap.h"

static void
test_add(void)
{
	static struct priv_view v;
	char longpath[PATH_MAX + 8];
	int i, full = 0;

	ok(priv_view_add(&v, "etc", 0) == -1 && errno == EINVAL,
	    "a relative path is refused");
	ok(priv_view_add(&v, "/var/../etc", 0) == -1 && errno == EINVAL,
	    "a path with .. is refused");
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	ok(priv_view_add(&v, longpath, 0) == -1 && errno == ENAMETOOLONG,
	    "a path longer than PATH_MAX is refused");
	ok(v.pv_n == 0, "nothing refused was added");
	ok(priv_view_add(&v, "/etc/..", 0) == -1 && errno == EINVAL,
	    "a path ending in .. is refused");
	ok(priv_view_add(&v, "/etc", 0) == 0 && v.pv_n == 1, "/etc added");
	ok(priv_view_add(&v, "/etc/cilknow/users", 0) == 0 && v.pv_n == 1,
	    "a folder inside it, read-only too, is seen through it: not added");
	ok(priv_view_add(&v, "/etc/cilknow/users", PRIV_VIEW_RW) == 0 &&
	    v.pv_n == 2, "one to be written is added");
	ok(priv_view_add(&v, "/etcetera", 0) == 0 && v.pv_n == 3,
	    "/etcetera is not inside /etc");
	for (i = 0; i < PRIV_VIEW_MAX + 1; i++) {
		snprintf(longpath, sizeof(longpath), "/x%d", i);
		if (priv_view_add(&v, longpath, 0) == -1 && errno == ENOSPC)
			full++;
	}
	ok(v.pv_n == PRIV_VIEW_MAX && full == 4,
	    "%d paths at most: the next are refused (ENOSPC)", PRIV_VIEW_MAX);
}

/* What the child finds, one bit a check; 0xff if it could not enter. */
#define SEES_RW		0x01	/* writes its read-write folder */
#define SEES_RO		0x02	/* cannot write the read-only one */
#define SEES_FILE	0x04	/* reads the file bound alone */
#define HIDES_TMP	0x08	/* the rest of the test folder is gone */
#define HIDES_USR	0x10	/* and so is /usr */
#define ROOT_RO		0x20	/* its root takes no new file */

static int
child_sees(const struct priv_view *v, const char *dir)
{
	char path[PATH_MAX + 64], err[256], buf[8];
	int fd, bits = 0;
	ssize_t n;

	if (priv_view_enter(v, err, sizeof(err)) == -1) {
		fprintf(stderr, "# %s\n", err);
		return 0xff;
	}
	snprintf(path, sizeof(path), "%s/rw/new", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) != -1) {
		bits |= SEES_RW;
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/ro/new", dir);
	if (open(path, O_WRONLY | O_CREAT, 0600) == -1 && errno == EROFS)
		bits |= SEES_RO;
	snprintf(path, sizeof(path), "%s/file", dir);
	if ((fd = open(path, O_RDONLY)) != -1) {
		n = read(fd, buf, sizeof(buf));
		if (n == 5 && memcmp(buf, "hello", 5) == 0)
			bits |= SEES_FILE;
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/secret", dir);
	if (access(path, F_OK) == -1 && errno == ENOENT)
		bits |= HIDES_TMP;
	if (access("/usr", F_OK) == -1 && errno == ENOENT)
		bits |= HIDES_USR;
	if (mkdir("/new", 0755) == -1 && errno == EROFS)
		bits |= ROOT_RO;
	return bits;
}

static void
test_enter(void)
{
	static const char *const leaves[] = { "rw/new", "rw", "ro", "secret",
	    "file", "root" };
	static struct priv_view v;
	char dir[] = "/tmp/priv_view_test.XXXXXX", path[PATH_MAX + 64];
	static char mounts[1 << 20];
	int status, fd, all = SEES_RW | SEES_RO | SEES_FILE | HIDES_TMP |
	    HIDES_USR | ROOT_RO, bits;
	pid_t pid;
	FILE *f;
	size_t n;

	if (geteuid() != 0) {
		skip("not root: no mount namespace to make");
		return;
	}
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/rw", dir);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/ro", dir);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/secret", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) != -1)
		close(fd);
	snprintf(path, sizeof(path), "%s/file", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0644)) != -1) {
		(void)!write(fd, "hello", 5);
		close(fd);
	}
	snprintf(v.pv_root, sizeof(v.pv_root), "%s/root", dir);
	snprintf(path, sizeof(path), "%s/rw", dir);
	ok(priv_view_add(&v, path, PRIV_VIEW_RW) == 0, "a read-write folder");
	snprintf(path, sizeof(path), "%s/ro", dir);
	ok(priv_view_add(&v, path, 0) == 0, "a read-only folder");
	snprintf(path, sizeof(path), "%s/file", dir);
	ok(priv_view_add(&v, path, 0) == 0, "a file alone");
	snprintf(path, sizeof(path), "%s/absent", dir);
	ok(priv_view_add(&v, path, PRIV_VIEW_OPTIONAL) == 0,
	    "an optional path that is not there");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(child_sees(&v, dir));
	bits = pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) ? WEXITSTATUS(status) : 0xff;
	if (bits == 0xff) {
		ok(0, "the child entered its view");
		goto out;
	}
	ok((bits & all) == all, "the child writes its read-write folder, not "
	    "the read-only one, reads the file, and sees neither the rest "
	    "of the folder nor /usr; its root is read-only (%#x of %#x)",
	    (unsigned)bits, (unsigned)all);
	mounts[0] = '\0';
	if ((f = fopen("/proc/self/mountinfo", "r")) != NULL) {
		n = fread(mounts, 1, sizeof(mounts) - 1, f);
		mounts[n] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/root", dir);
	ok(f != NULL && strstr(mounts, path) == NULL,
	    "none of its mounts is in ours");
	snprintf(path, sizeof(path), "%s/rw/new", dir);
	ok(access(path, F_OK) == 0, "what it wrote is in the host's folder");
	/* A root that is no folder of root's: refused, nothing entered. */
	snprintf(v.pv_root, sizeof(v.pv_root), "%s/file", dir);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char err[256];

		_exit(priv_view_enter(&v, err, sizeof(err)) == -1 &&
		    strstr(err, "not a folder of root's") != NULL ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "a root that is a file is refused");
 out:
	for (n = 0; n < sizeof(leaves) / sizeof(leaves[0]); n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, leaves[n]);
		(void)remove(path);
	}
	(void)rmdir(dir);
}

int
main(void)
{
	test_add();
	test_enter();
	return tap_done();
}
