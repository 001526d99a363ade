/*
 * lpad_stage — file staging in the launch pad (CilkLaunchPad(8),
 * STAGING): the spec's staging keys; the task folder, made by the
 * launch pad inside the worker folder and given to the user; the
 * stage-in copy, done by the worker's own process after it has dropped
 * to the user and before it execs, from the node manager engine's spool
 * into the task folder, every file checked against the hash the user
 * signed; and the stage-out collection, done by a child that drops to
 * the user after the worker has exited, into the worker folder's
 * stage.out, which the engine relays like the logs.  Nothing here
 * reads or writes the user's files as root.
 */
#include "lpad.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Opens a path of the engine's as root: no symbolic link anywhere on
 * the way (the engine could make one of its folders point at /dev, and
 * opening some devices does something), no blocking on a FIFO.  Walked
 * a component at a time from /, as stage_openat does.
 */
static int
open_no_links(const char *path)
{
	int root, fd, saved;

	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	if ((root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	fd = stage_openat(root, path + 1, O_RDONLY | O_NONBLOCK, 0, 0);
	saved = errno;
	close(root);
	errno = saved;
	return fd;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
lpad_spec_stage_value(struct lpad_spec *sp, const char *key, const char *v)
{
	struct stage_list *l = &sp->ls_stage;
	struct stage_file *f;
	char why[64], *end;
	unsigned long long n;
	int i, hi, lo;

	if (strcmp(key, "taskdir") == 0) {
		if (strcmp(v, "1") != 0)
			return -1;
		sp->ls_taskdir = 1;
		return 0;
	}
	if (strcmp(key, "stage_spool") == 0) {
		if (v[0] != '/' || strlen(v) >= sizeof(sp->ls_stage_spool))
			return -1;
		strlcpy(sp->ls_stage_spool, v, sizeof(sp->ls_stage_spool));
		return 0;
	}
	if (strcmp(key, "stage_out") == 0) {
		if (l->sl_nout >= STAGE_GLOBS_MAX ||
		    stage_name_ok(v, 1, why, sizeof(why)) == -1)
			return -1;
		strlcpy(l->sl_out[l->sl_nout++], v, sizeof(l->sl_out[0]));
		return 0;
	}
	if (v[0] < '0' || v[0] > '9')
		return -1;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || n > (1ULL << 62))
		return -1;
	if (strcmp(key, "stage_uid") == 0 || strcmp(key, "stage_max") == 0 ||
	    strcmp(key, "stage_max_task") == 0) {
		if (*end != '\0')
			return -1;
		if (key[6] == 'u') {
			if (n > UINT32_MAX - 1)
				return -1;
			sp->ls_stage_uid = (long long)n;
		} else if (strcmp(key, "stage_max") == 0)
			sp->ls_stage_max = n;
		else
			sp->ls_stage_max_task = n;
		return 0;
	}
	if (strcmp(key, "stage_in") != 0 || l->sl_nin >= STAGE_FILES_MAX ||
	    *end != ' ')
		return -1;
	f = &l->sl_in[l->sl_nin];
	f->sf_size = n;
	v = end + 1;
	for (i = 0; i < STAGE_HASH_LEN; i++) {
		if ((hi = hexval(v[2 * i])) == -1 ||
		    (lo = hexval(v[2 * i + 1])) == -1)
			return -1;
		f->sf_hash[i] = (uint8_t)(hi << 4 | lo);
	}
	v += 2 * STAGE_HASH_LEN;
	if (*v != ' ' || stage_name_ok(v + 1, 0, why, sizeof(why)) == -1)
		return -1;
	strlcpy(f->sf_name, v + 1, sizeof(f->sf_name));
	l->sl_nin++;
	return 0;
}

int
lpad_spec_check_stage(const struct lpad_spec *sp, char *why, size_t whysz)
{
	const struct stage_list *l = &sp->ls_stage;
	char sub[64];
	uint16_t i;

	if (l->sl_nin > STAGE_FILES_MAX || l->sl_nout > STAGE_GLOBS_MAX)
		goto bad;
	if ((l->sl_nin > 0 || l->sl_nout > 0) && !sp->ls_taskdir) {
		if (why != NULL)
			snprintf(why, whysz, "staging without taskdir");
		return -1;
	}
	if (l->sl_nin > 0 && (sp->ls_stage_spool[0] != '/' ||
	    sp->ls_stage_uid < 0)) {
		if (why != NULL)
			snprintf(why, whysz, "stage_in without stage_spool "
			    "and stage_uid");
		return -1;
	}
	for (i = 0; i < l->sl_nin; i++)
		if (stage_name_ok(l->sl_in[i].sf_name, 0, sub,
		    sizeof(sub)) == -1)
			goto bad;
	for (i = 0; i < l->sl_nout; i++)
		if (stage_name_ok(l->sl_out[i], 1, sub, sizeof(sub)) == -1)
			goto bad;
	return 0;
 bad:
	if (why != NULL)
		snprintf(why, whysz, "invalid staging keys");
	return -1;
}

void
lpad_spec_put_stage(const struct lpad_spec *sp,
    void (*put)(void *, const char *, const char *), void *arg)
{
	const struct stage_list *l = &sp->ls_stage;
	char line[32 + 2 * STAGE_HASH_LEN + STAGE_NAME_MAX];
	uint16_t i;
	size_t k;
	int n;

	if (sp->ls_taskdir)
		put(arg, "taskdir", "1");
	if (sp->ls_stage_spool[0] != '\0')
		put(arg, "stage_spool", sp->ls_stage_spool);
	if (sp->ls_stage_uid >= 0) {
		snprintf(line, sizeof(line), "%lld", sp->ls_stage_uid);
		put(arg, "stage_uid", line);
	}
	if (sp->ls_stage_max > 0) {
		snprintf(line, sizeof(line), "%llu",
		    (unsigned long long)sp->ls_stage_max);
		put(arg, "stage_max", line);
	}
	if (sp->ls_stage_max_task > 0) {
		snprintf(line, sizeof(line), "%llu",
		    (unsigned long long)sp->ls_stage_max_task);
		put(arg, "stage_max_task", line);
	}
	for (i = 0; i < l->sl_nin; i++) {
		n = snprintf(line, sizeof(line), "%llu ",
		    (unsigned long long)l->sl_in[i].sf_size);
		for (k = 0; k < STAGE_HASH_LEN; k++)
			n += snprintf(line + n, sizeof(line) - (size_t)n,
			    "%02x", l->sl_in[i].sf_hash[k]);
		snprintf(line + n, sizeof(line) - (size_t)n, " %s",
		    l->sl_in[i].sf_name);
		put(arg, "stage_in", line);
	}
	for (i = 0; i < l->sl_nout; i++)
		put(arg, "stage_out", l->sl_out[i]);
}

int
lpad_stage_setup(const struct lpad_spec *sp, int wfd, uid_t uid, gid_t gid,
    int root, int *taskfd, int *spoolfd, char *why, size_t whysz)
{
	struct stat st;
	uint64_t total = stage_in_total(&sp->ls_stage);

	*taskfd = *spoolfd = -1;
	if (!sp->ls_taskdir)
		return 0;
	/*
	 * Made here, in the launch pad's own folder, and given to the
	 * user: nothing of the user's is on the way to it.
	 */
	if (mkdirat(wfd, STAGE_TASK_DIR, 0700) == -1 ||
	    (*taskfd = openat(wfd, STAGE_TASK_DIR, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    (root && fchown(*taskfd, uid, gid) == -1)) {
		snprintf(why, whysz, "task folder: %s", strerror(errno));
		return -1;
	}
	/*
	 * The worker's folder may be passed through by anyone (every file
	 * in it is 0600 or 0640), so the task reaches its folder by path
	 * too ($PWD/input.txt, realpath), not only as its working folder.
	 */
	if (fstat(wfd, &st) == -1 ||
	    fchmod(wfd, (st.st_mode & 07777) | S_IXOTH) == -1) {
		snprintf(why, whysz, "task folder: %s", strerror(errno));
		return -1;
	}
	if (sp->ls_stage.sl_nin == 0)
		return 0;
	/*
	 * The engine's spool, which we only read and the worker checks
	 * against the user's hashes: a regular file of the engine's with
	 * one link (not another file of someone's linked in).
	 */
	if ((*spoolfd = open_no_links(sp->ls_stage_spool)) == -1 ||
	    fstat(*spoolfd, &st) == -1) {
		snprintf(why, whysz, "stage-in spool %s: %s",
		    sp->ls_stage_spool, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (long long)st.st_uid != sp->ls_stage_uid ||
	    (uint64_t)st.st_size != total) {
		snprintf(why, whysz, "stage-in spool %s: not a regular file "
		    "of uid %lld with one link and %llu bytes",
		    sp->ls_stage_spool, sp->ls_stage_uid,
		    (unsigned long long)total);
		return -1;
	}
	return 0;
}

int
lpad_stage_in(const struct lpad_spec *sp, int taskfd, int spoolfd,
    char *what, size_t whatsz)
{
	const struct stage_list *l = &sp->ls_stage;
	uint8_t hash[STAGE_HASH_LEN];
	uint16_t i;
	int fd;

	for (i = 0; i < l->sl_nin; i++) {
		snprintf(what, whatsz, "stage-in %s", l->sl_in[i].sf_name);
		if ((fd = stage_openat(taskfd, l->sl_in[i].sf_name, O_WRONLY |
		    O_CREAT | O_EXCL, 0644, 1)) == -1)
			return -1;
		if (stage_copy(spoolfd, fd, l->sl_in[i].sf_size, hash) == -1 ||
		    close(fd) == -1)
			return -1;
		if (sodium_memcmp(hash, l->sl_in[i].sf_hash,
		    STAGE_HASH_LEN) != 0) {
			(void)unlinkat(taskfd, l->sl_in[i].sf_name, 0);
			snprintf(what, whatsz, "stage-in %s: content does not "
			    "match the hash the user signed (changed since "
			    "submission?)", l->sl_in[i].sf_name);
			errno = EBADMSG;
			return -1;
		}
	}
	return 0;
}

/* In a child: become the user for good, as the worker does. */
static int
drop_to(const char *user, uid_t uid, gid_t gid, int root)
{
	uid_t ru, eu, su;

	if (root && (initgroups(user, gid) == -1 ||
	    setresgid(gid, gid, gid) == -1 ||
	    setresuid(uid, uid, uid) == -1))
		return -1;
	if (getresuid(&ru, &eu, &su) == -1 || ru != uid || eu != uid ||
	    su != uid || (uid != 0 && setuid(0) != -1))
		return -1;
	return 0;
}

int
lpad_stage_out(const struct lpad_spec *sp, int wfd, int taskfd, uid_t uid,
    gid_t gid, int root, char *why, size_t whysz)
{
	pid_t pid;
	int out, status, rc;

	if (sp->ls_stage.sl_nout == 0 || taskfd == -1)
		return 0;
	/* Ours, like the logs: the engine's group reads it. */
	if ((out = openat(wfd, STAGE_OUT_FILE, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0640)) == -1 ||
	    (sp->ls_log_gid >= 0 && (fchown(out, (uid_t)-1,
	    (gid_t)sp->ls_log_gid) == -1 || fchmod(out, 0640) == -1))) {
		snprintf(why, whysz, "%s: %s", STAGE_OUT_FILE,
		    strerror(errno));
		if (out != -1)
			close(out);
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(why, whysz, "fork: %s", strerror(errno));
		close(out);
		return -1;
	}
	if (pid == 0) {
		if (drop_to(sp->ls_user, uid, gid, root) == -1) {
			(void)stage_put_note(out, "stage-out: cannot become "
			    "user %s", sp->ls_user);
			_exit(1);
		}
		rc = stage_out_collect(taskfd, &sp->ls_stage, out,
		    sp->ls_stage_max > 0 ? sp->ls_stage_max : 64ULL << 20,
		    sp->ls_stage_max_task > 0 ? sp->ls_stage_max_task :
		    256ULL << 20);
		_exit(rc == -1 ? 1 : 0);
	}
	close(out);
	while ((rc = waitpid(pid, &status, 0)) == -1 && errno == EINTR)
		;
	if (rc == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, whysz, "stage-out collection failed");
		return -1;
	}
	return 0;
}
