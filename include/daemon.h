/*
 * daemon — what the daemons' mains share: the common daemon options,
 * detaching with a reporting pipe (MUNGE's daemonpipe: the parent exits
 * only when the daemon is ready, or with its error), and pid files.
 */
#ifndef CILKNOW_DAEMON_H
#define CILKNOW_DAEMON_H

#include "cli.h"

struct daemon_args {
	struct cli_common	 da_cc;
	int			 da_foreground;	/* -f */
	int			 da_check;	/* -n: check config, exit */
};

/*
 * getopt for "-f -n -c -o -v -V -h" plus the daemon's own letters in
 * extra (handled by the callback, which returns 0 or -1 for a usage
 * error).  Calls usage(2) on errors and usage(0) for -h.
 */
void	daemon_getopt(struct daemon_args *, int argc, char **argv,
	    const char *prog, const char *extra,
	    int (*opt)(int ch, const char *arg, void *), void *arg,
	    void (*usage)(int));

/*
 * Unless foreground, forks so that the caller continues in a detached
 * grandchild; the original process waits until daemon_ready() or
 * daemon_fail() and exits with its status.  -1 on error (errno).
 */
int	daemon_detach(int foreground);
/* Startup finished: release the waiting parent. */
void	daemon_ready(void);
/*
 * In a child that will not report (a privileged daemon's engine): its
 * copy of the pipe closed, so the parent's report is the one awaited.
 */
void	daemon_forget_report(void);
/* Startup failed: the waiting parent prints msg and exits 1. */
void	daemon_fail(const char *msg);

/*
 * Writes our pid to path, refusing (-1, errno EEXIST) when another
 * live process holds it; daemon_pidfile_remove() on shutdown.
 */
int	daemon_pidfile(const char *path);
/*
 * In a child of the process that holds the pid file: let go of our
 * copy of its lock, so that the lock dies with the parent, not with us.
 */
void	daemon_pidfile_forget(void);
void	daemon_pidfile_remove(const char *path);

#endif
