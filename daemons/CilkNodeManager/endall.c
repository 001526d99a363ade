/*
 * CilkNodeManager -k: end every worker of this node, and its launch
 * pad, then exit.  A node manager that still runs is told to leave
 * first (SIGUSR1, leave.c): it stops its workers itself and reports
 * their ends to their job managers, so that their tasks run again
 * elsewhere at once, and exits.  The package's prerm runs -k on
 * removal: launch pads outlive the node manager by design, and once the
 * programs are gone nothing could stop them.
 *
 * The launch pads do the killing, as when a node manager stops a
 * worker: each knows its worker's cgroup (or process tree) and, once
 * the worker's main process has exited, kills every process left in
 * it, setsid()ed and daemonized ones included.  Nothing outside the
 * launch pad could find those as surely.
 */
#include <sys/file.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpad.h"
#include "mono.h"
#include "node.h"

/* Launch pads we tell apart; more than one node runs is never seen. */
#define ENDALL_MAX	256

/*
 * A launch pad the node manager started just before it was stopped
 * listens a few milliseconds after its exec, before its worker starts:
 * we look again for a second.
 */
#define ENDALL_SETTLE	1.0

struct endall {
	const char	*ea_run_dir;
	double		 ea_grace;
	int		 ea_asked;	/* launch pads told to stop and quit */
	int		 ea_failed;	/* launch pads that would not */
	char		 ea_seen[ENDALL_MAX][LPAD_WORKER_MAX + 1];
	int		 ea_nseen;
};

/* 1 if worker's launch pad was told already, else remembers it. */
static int
seen(struct endall *ea, const char *worker)
{
	int i;

	for (i = 0; i < ea->ea_nseen; i++)
		if (strcmp(ea->ea_seen[i], worker) == 0)
			return 1;
	if (ea->ea_nseen < ENDALL_MAX)
		strlcpy(ea->ea_seen[ea->ea_nseen++], worker,
		    sizeof(ea->ea_seen[0]));
	return 0;
}

/*
 * QUIT, then STOP with the grace: the launch pad exits once everything
 * is gone.  In this order, because a worker that has exited makes its
 * launch pad send an unasked status, which must not come in the place
 * of the QUIT's answer; and one that had exited before makes it quit at
 * once, so the STOP may find nobody.  Whether they went is seen after.
 */
static int
end_one(const char *worker, void *arg)
{
	struct endall *ea = arg;
	int fd;

	if (seen(ea, worker))
		return 0;
	if ((fd = lpad_connect(ea->ea_run_dir, worker)) == -1 ||
	    lpad_quit(fd) == -1) {
		warn("worker %s: its launch pad would not quit", worker);
		ea->ea_failed++;
	} else {
		(void)lpad_stop(fd, ea->ea_grace);
		ea->ea_asked++;
	}
	if (fd != -1)
		close(fd);
	return 0;
}

/*
 * The running node manager, if any (it holds its pid file's lock), is
 * told to leave, and awaited at most twice the grace and 30 seconds
 * more: 0 when none ran or it has gone, -1 when it is still there (the
 * launch pads are then ended all the same, unreported).
 */
static int
leave_running(const char *run_dir, double grace)
{
	char path[PATH_MAX], text[32], *end;
	double deadline;
	ssize_t got;
	long pid;
	int fd, rc = -1;

	if (snprintf(path, sizeof(path), "%s/CilkNodeManager.pid",
	    run_dir) >= (int)sizeof(path) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK) {
		close(fd);	/* nobody holds it: none runs */
		return 0;
	}
	got = read(fd, text, sizeof(text) - 1);
	text[got > 0 ? got : 0] = '\0';
	errno = 0;
	pid = strtol(text, &end, 10);
	if (errno != 0 || pid <= 1 || (*end != '\n' && *end != '\0')) {
		warnx("%s: no pid in it", path);
		goto out;
	}
	if (kill((pid_t)pid, SIGUSR1) == -1) {
		warn("the node manager (pid %ld)", pid);
		goto out;
	}
	printf("the node manager (pid %ld) is leaving: it stops its workers "
	    "and tells their job managers\n", pid);
	(void)fflush(stdout);
	deadline = now_mono() + 2 * grace + LPAD_TIMEOUT + 30;
	while (flock(fd, LOCK_SH | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			warn("%s", path);
			goto out;
		}
		if (now_mono() >= deadline) {
			warnx("the node manager (pid %ld) did not leave within "
			    "%.0f s", pid, 2 * grace + LPAD_TIMEOUT + 30);
			goto out;
		}
		usleep(50000);
	}
	printf("the node manager has left\n");
	rc = 0;
out:
	close(fd);
	return rc;
}

int
node_end_workers(const char *run_dir, double grace)
{
	static struct endall ea;
	double settled, deadline;
	int live;

	memset(&ea, 0, sizeof(ea));
	(void)leave_running(run_dir, grace);
	ea.ea_run_dir = run_dir;
	ea.ea_grace = grace;
	/*
	 * SIGKILL comes at twice the grace; a launch pad closes its
	 * socket when it exits, so lpad_list stops seeing it.  Each look
	 * tells the newcomers too.
	 */
	settled = now_mono() + ENDALL_SETTLE;
	deadline = settled + 2 * grace + LPAD_TIMEOUT;
	for (;;) {
		if ((live = lpad_list(run_dir, end_one, &ea)) == -1) {
			warn("%s/lpad", run_dir);
			return 1;
		}
		if ((live == 0 && now_mono() >= settled) ||
		    now_mono() >= deadline)
			break;
		usleep(50000);
	}
	if (live != 0) {
		warnx("%d launch pad(s) in %s/lpad still run", live, run_dir);
		return 1;
	}
	printf("ended %d worker(s)\n", ea.ea_asked);
	return ea.ea_failed > 0;
}
