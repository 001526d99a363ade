/*
 * stage: file operations relative to a folder's descriptor, never
 * following a symbolic link, and the stage-out collector.
 */
#include "stage.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
stage_openat(int dirfd, const char *rel, int flags, mode_t mode, int mkdirs)
{
	char comp[STAGE_NAME_MAX + 1];
	const char *c, *slash;
	int fd = dirfd, next, saved;
	size_t n;

	for (c = rel; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
		n = (size_t)(slash - c);
		if (n == 0 || n >= sizeof(comp)) {
			errno = EINVAL;
			goto fail;
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (next == -1 && errno == ENOENT && mkdirs) {
			if (mkdirat(fd, comp, 0700) == -1 && errno != EEXIST)
				goto fail;
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		}
		if (next == -1)
			goto fail;
		if (fd != dirfd)
			close(fd);
		fd = next;
	}
	next = openat(fd, c, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	saved = errno;
	if (fd != dirfd)
		close(fd);
	errno = saved;
	return next;
 fail:
	saved = errno;
	if (fd != dirfd)
		close(fd);
	errno = saved;
	return -1;
}

static int
rmtree_in(int dfd, int depth)
{
	DIR *d;
	struct dirent *de;
	int rc = 0, sub, fd;

	if ((fd = dup(dfd)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dfd, de->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		/* A folder: opened without following, emptied, removed. */
		if (depth >= 64 || (sub = openat(dfd, de->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
			rc = -1;
			continue;
		}
		if (rmtree_in(sub, depth + 1) == -1)
			rc = -1;
		close(sub);
		if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) == -1 &&
		    errno != ENOENT)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int
stage_rmtree(int dirfd, const char *name)
{
	int fd, rc;

	if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT ? 0 : -1;
	rc = rmtree_in(fd, 0);
	close(fd);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == -1 && errno != ENOENT)
		rc = -1;
	return rc;
}

static int
write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	ssize_t k;

	while (n > 0) {
		if ((k = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int
stage_copy(int in, int out, uint64_t len, uint8_t hash[STAGE_HASH_LEN])
{
	crypto_generichash_state st;
	uint8_t buf[65536];
	size_t want;
	ssize_t n;

	crypto_generichash_init(&st, NULL, 0, STAGE_HASH_LEN);
	while (len > 0) {
		want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		if ((n = read(in, buf, want)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;	/* shorter than it said */
			return -1;
		}
		crypto_generichash_update(&st, buf, (size_t)n);
		if (out != -1 && write_all(out, buf, (size_t)n) == -1)
			return -1;
		len -= (uint64_t)n;
	}
	crypto_generichash_final(&st, hash, STAGE_HASH_LEN);
	return 0;
}

int
stage_hash_fd(int fd, uint8_t hash[STAGE_HASH_LEN], uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -1;
	*size = (uint64_t)st.st_size;
	return stage_copy(fd, -1, *size, hash);
}

int
stage_put_note(int fd, const char *fmt, ...)
{
	char text[STAGE_NAME_MAX + 1];
	uint8_t hdr[3];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	(void)vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if ((n = strlen(text)) == 0)
		return 0;
	hdr[0] = STAGE_REC_NOTE;
	hdr[1] = (uint8_t)(n >> 8);
	hdr[2] = (uint8_t)n;
	return write_all(fd, hdr, 3) == -1 || write_all(fd, text, n) == -1 ?
	    -1 : 0;
}

/* One file's record: header, bytes, hash. */
static int
put_file(int out, int in, const char *name, uint64_t size)
{
	uint8_t hdr[3 + STAGE_NAME_MAX + 8], hash[STAGE_HASH_LEN];
	size_t n = strlen(name), i;

	hdr[0] = STAGE_REC_FILE;
	hdr[1] = (uint8_t)(n >> 8);
	hdr[2] = (uint8_t)n;
	memcpy(hdr + 3, name, n);
	for (i = 0; i < 8; i++)
		hdr[3 + n + i] = (uint8_t)(size >> (56 - 8 * i));
	if (write_all(out, hdr, 3 + n + 8) == -1 ||
	    stage_copy(in, out, size, hash) == -1 ||
	    write_all(out, hash, sizeof(hash)) == -1)
		return -1;
	return 0;
}

struct collect {
	const struct stage_list	*c_list;
	int			 c_out;
	uint64_t		 c_max_file, c_max_task, c_total;
	int			 c_files;
	int			 c_matched[STAGE_GLOBS_MAX];
	int			 c_failed;	/* out cannot be written */
};

static void
collect_file(struct collect *c, int dfd, const char *name, const char *rel)
{
	struct stat st;
	int fd;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		if (stage_put_note(c->c_out, "%s: %s: not sent", rel,
		    errno == ELOOP ? "a symbolic link" : strerror(errno)) == -1)
			c->c_failed = 1;
		return;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		;	/* a folder the glob names: nothing to send */
	else if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		if (stage_put_note(c->c_out, "%s: not a regular file: not "
		    "sent", rel) == -1)
			c->c_failed = 1;
	} else if ((uint64_t)st.st_size > c->c_max_file) {
		if (stage_put_note(c->c_out, "%s: %llu bytes, over stage_max "
		    "(%llu): not sent", rel, (unsigned long long)st.st_size,
		    (unsigned long long)c->c_max_file) == -1)
			c->c_failed = 1;
	} else if (c->c_total + (uint64_t)st.st_size > c->c_max_task ||
	    c->c_files >= STAGE_OUT_FILES_MAX) {
		if (stage_put_note(c->c_out, "%s: over the task's "
		    "stage_max_task (%llu bytes) or %d files: not sent", rel,
		    (unsigned long long)c->c_max_task, STAGE_OUT_FILES_MAX) ==
		    -1)
			c->c_failed = 1;
	} else if (put_file(c->c_out, fd, rel, (uint64_t)st.st_size) == -1) {
		/* A file that shrank cannot be framed any more. */
		c->c_failed = 1;
	} else {
		c->c_total += (uint64_t)st.st_size;
		c->c_files++;
	}
	close(fd);
}

/* 1 if glob has more components than path and its first ones match. */
static int
glob_reaches(const char *glob, const char *path)
{
	char head[STAGE_NAME_MAX + 1];
	const char *p, *g = glob;
	int k = 1;

	for (p = path; *p != '\0'; p++)
		if (*p == '/')
			k++;
	while (k-- > 0)
		if ((g = strchr(g, '/')) == NULL)
			return 0;
		else if (k > 0)
			g++;
	if ((size_t)(g - glob) >= sizeof(head))
		return 0;
	memcpy(head, glob, (size_t)(g - glob));
	head[g - glob] = '\0';
	return fnmatch(head, path, FNM_PATHNAME | FNM_PERIOD) == 0;
}

/* Walks the folder dfd (at rel, depth deep) against every glob. */
static void
collect_dir(struct collect *c, int dfd, const char *rel, int depth)
{
	const struct stage_list *l = c->c_list;
	char path[STAGE_NAME_MAX + 2];
	struct dirent *de;
	DIR *d;
	int fd, sub, hit, prefix;
	uint16_t i;

	if (depth >= STAGE_DEPTH_MAX || (fd = dup(dfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL && !c->c_failed) {
		if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
		    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", rel,
		    *rel ? "/" : "", de->d_name) > STAGE_NAME_MAX)
			continue;
		hit = prefix = 0;
		for (i = 0; i < l->sl_nout; i++) {
			if (fnmatch(l->sl_out[i], path, FNM_PATHNAME |
			    FNM_PERIOD) == 0) {
				c->c_matched[i] = 1;
				hit = 1;
			} else if (glob_reaches(l->sl_out[i], path))
				prefix = 1;
		}
		if (hit) {
			collect_file(c, dfd, de->d_name, path);
			continue;
		}
		if (!prefix)
			continue;
		/* A folder some glob reaches into; never through a link. */
		if ((sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		collect_dir(c, sub, path, depth + 1);
		close(sub);
	}
	closedir(d);
}

int
stage_out_collect(int dirfd, const struct stage_list *l, int out,
    uint64_t max_file, uint64_t max_task)
{
	struct collect c;
	uint16_t i;

	memset(&c, 0, sizeof(c));
	c.c_list = l;
	c.c_out = out;
	c.c_max_file = max_file;
	c.c_max_task = max_task;
	collect_dir(&c, dirfd, "", 0);
	for (i = 0; i < l->sl_nout && !c.c_failed; i++)
		if (!c.c_matched[i] && stage_put_note(out, "--stage-out %s: "
		    "no file matched", l->sl_out[i]) == -1)
			c.c_failed = 1;
	return c.c_failed ? -1 : c.c_files;
}
