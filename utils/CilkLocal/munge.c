/*
 * CilkLocal start --auth munge: a private munged for the cluster, with
 * its own key, socket and files in DIR/munge, so that the users of the
 * cluster authenticate with munge (cilknow(7)) without the system's
 * munge being touched.  stop ends it by the pid it wrote, if that pid
 * is still a munged of DIR.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "local.h"
#include "mono.h"
#include "msg_munge.h"

#define MUNGED_BIN	"munged"
#define MUNGE_KEY_BYTES	1024	/* as mungekey makes by default */
#define MUNGE_WAIT	10.0	/* s for its socket to answer */

/* A fresh random key, mode 0600, as dd if=/dev/urandom would make. */
static int
make_key(const char *path)
{
	uint8_t key[MUNGE_KEY_BYTES];
	int fd, rc = -1;

	randombytes_buf(key, sizeof(key));
	(void)unlink(path);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		warn("%s", path);
		goto out;
	}
	if (write(fd, key, sizeof(key)) != (ssize_t)sizeof(key) ||
	    fsync(fd) == -1)
		warn("%s", path);
	else
		rc = 0;
	if (close(fd) == -1)
		rc = -1;
 out:
	sodium_memzero(key, sizeof(key));
	return rc;
}

/* munged daemonises itself: run it and wait for the parent. */
static int
run_munged(const struct local *lo, int force)
{
	char sock[PATH_MAX + 32], key[PATH_MAX + 32], pid[PATH_MAX + 32];
	char log[PATH_MAX + 32], seed[PATH_MAX + 32];
	char *argv[10];
	pid_t p;
	int a = 0, status;

	snprintf(sock, sizeof(sock), "--socket=%s/munge/socket", lo->lo_dir);
	snprintf(key, sizeof(key), "--key-file=%s/munge/munge.key",
	    lo->lo_dir);
	snprintf(pid, sizeof(pid), "--pid-file=%s/munge/munged.pid",
	    lo->lo_dir);
	snprintf(log, sizeof(log), "--log-file=%s/munge/munged.log",
	    lo->lo_dir);
	snprintf(seed, sizeof(seed), "--seed-file=%s/munge/munged.seed",
	    lo->lo_dir);
	argv[a++] = (char *)(uintptr_t)MUNGED_BIN;
	argv[a++] = sock;
	argv[a++] = key;
	argv[a++] = pid;
	argv[a++] = log;
	argv[a++] = seed;
	if (force)
		argv[a++] = (char *)(uintptr_t)"--force";
	argv[a] = NULL;
	if ((p = fork()) == -1) {
		warn("fork");
		return -1;
	}
	if (p == 0) {
		execvp(MUNGED_BIN, argv);
		fprintf(stderr, "CilkLocal: cannot run %s: %s; install munge "
		    "(apt-get install munge)\n", MUNGED_BIN, strerror(errno));
		_exit(127);
	}
	while (waitpid(p, &status, 0) == -1)
		if (errno != EINTR) {
			warn("waitpid");
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -2;	/* not installed: --force will not help */
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
local_munge_start(const struct local *lo)
{
	char dir[PATH_MAX], key[PATH_MAX], sock[PATH_MAX];
	double until;
	int rc;

	if (local_path(lo, dir, sizeof(dir), "munge") == -1 ||
	    local_path(lo, key, sizeof(key), "munge/munge.key") == -1 ||
	    local_path(lo, sock, sizeof(sock), "munge/socket") == -1)
		return -1;
	/* munged refuses a folder others may write; users must reach it. */
	if ((mkdir(dir, 0755) == -1 && errno != EEXIST) ||
	    chmod(dir, 0755) == -1) {
		warn("%s", dir);
		return -1;
	}
	/* A munged of an earlier start of DIR goes; so does its socket. */
	local_munge_stop(lo);
	(void)unlink(sock);
	if (make_key(key) == -1)
		return -1;
	/* Some checks (a root-owned DIR above a user's, say) need -f. */
	if ((rc = run_munged(lo, 0)) == -1)
		rc = run_munged(lo, 1);
	if (rc != 0) {
		warnx("munged did not start; see %s/munged.log", dir);
		return -1;
	}
	for (until = now_mono() + MUNGE_WAIT; now_mono() < until;
	    usleep(20000))
		if (msg_munge_reachable(sock))
			return 0;
	warnx("munged does not answer at %s within %g s; see "
	    "%s/munged.log", sock, MUNGE_WAIT, dir);
	return -1;
}

/* 1 if pid's command line has the argument --socket=DIR/munge/socket. */
static int
is_ours(const struct local *lo, long pid)
{
	char path[64], want[PATH_MAX + 32], buf[8192];
	size_t n, i;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	snprintf(want, sizeof(want), "--socket=%s/munge/socket", lo->lo_dir);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	(void)fclose(fp);
	buf[n] = '\0';
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		if (strcmp(buf + i, want) == 0)
			return 1;
	return 0;
}

/* Ends the munged of DIR, if its pid file names one that runs. */
void
local_munge_stop(const struct local *lo)
{
	char path[PATH_MAX], text[32];
	double until;
	FILE *fp;
	long pid = 0;

	if (local_path(lo, path, sizeof(path), "munge/munged.pid") == -1 ||
	    (fp = fopen(path, "r")) == NULL)
		return;
	if (fgets(text, sizeof(text), fp) != NULL)
		pid = strtol(text, NULL, 10);
	(void)fclose(fp);
	/* Its command line names DIR: a reused pid is left alone. */
	if (pid <= 1 || !is_ours(lo, pid))
		return;
	if (kill((pid_t)pid, SIGTERM) == -1) {
		warn("kill munged %ld", pid);
		return;
	}
	for (until = now_mono() + LOCAL_STOP_WAIT; now_mono() < until &&
	    local_proc_alive((pid_t)pid); usleep(20000))
		;
	if (local_proc_alive((pid_t)pid))
		warnx("munged %ld did not stop", pid);
	else
		(void)unlink(path);
}
