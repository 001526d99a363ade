/* daemon — options, detaching with a reporting pipe, pid files. */
#include "daemon.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The write end of the reporting pipe, -1 when nobody waits. */
static int report_fd = -1;
/* The locked pid file. */
static int pidfile_fd = -1;

void
daemon_getopt(struct daemon_args *da, int argc, char **argv,
    const char *prog, const char *extra,
    int (*opt)(int, const char *, void *), void *arg, void (*usage)(int))
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char optstring[64];
	int ch;

	memset(da, 0, sizeof(*da));
	snprintf(optstring, sizeof(optstring), "fnc:o:vVh%s",
	    extra ? extra : "");
	while ((ch = getopt_long(argc, argv, optstring, longopts,
	    NULL)) != -1) {
		switch (cli_common_opt(&da->da_cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
		}
		switch (ch) {
		case 'f':
			da->da_foreground = 1;
			break;
		case 'n':
			da->da_check = 1;
			break;
		case 'h':
			usage(0);
			break;
		case 'V':
			cli_version(prog);
			exit(0);
		default:
			if (opt == NULL || ch == '?' || opt(ch, optarg,
			    arg) == -1)
				usage(CLI_EXIT_USAGE);
		}
	}
}

int
daemon_detach(int foreground)
{
	int fds[2], devnull, status = 1;
	pid_t pid;
	char buf[512];
	ssize_t n;
	size_t len = 0;

	if (foreground)
		return 0;
	if (pipe2(fds, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0) {
		/* The original process: wait for the verdict, pass it on. */
		close(fds[1]);
		while (len < sizeof(buf) - 1 &&
		    (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) != 0) {
			if (n == -1) {
				if (errno == EINTR)
					continue;
				break;
			}
			len += (size_t)n;
		}
		buf[len] = '\0';
		if (len > 0 && buf[0] == '\0')
			status = 0;
		else if (len > 0)
			fprintf(stderr, "%s\n", buf);
		else
			fprintf(stderr, "daemon died during startup\n");
		_exit(status);
	}
	close(fds[0]);
	if (setsid() == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0)
		_exit(0);
	report_fd = fds[1];
	if (chdir("/") == -1)
		return -1;
	umask(022);
	if ((devnull = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(devnull, STDIN_FILENO);
		(void)dup2(devnull, STDOUT_FILENO);
		(void)dup2(devnull, STDERR_FILENO);
		if (devnull > STDERR_FILENO)
			close(devnull);
	}
	return 0;
}

void
daemon_ready(void)
{
	char ok = '\0';

	if (report_fd == -1)
		return;
	(void)write(report_fd, &ok, 1);
	close(report_fd);
	report_fd = -1;
}

void
daemon_forget_report(void)
{
	if (report_fd != -1)
		close(report_fd);
	report_fd = -1;
}

void
daemon_fail(const char *msg)
{
	if (report_fd == -1)
		return;
	(void)write(report_fd, msg, strlen(msg));
	close(report_fd);
	report_fd = -1;
}

/*
 * The pid file is locked for as long as we live: the kernel lets go of
 * the lock when we die, even if nobody reaps us, where kill(pid, 0)
 * would still find a zombie.
 */
int
daemon_pidfile(const char *path)
{
	int fd;

	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		errno = errno == EWOULDBLOCK ? EEXIST : errno;
		return -1;
	}
	if (ftruncate(fd, 0) == -1 || dprintf(fd, "%ld\n",
	    (long)getpid()) < 0) {
		close(fd);
		return -1;
	}
	pidfile_fd = fd;	/* kept open: it holds the lock */
	return 0;
}

void
daemon_pidfile_forget(void)
{
	if (pidfile_fd != -1)
		close(pidfile_fd);
	pidfile_fd = -1;
}

void
daemon_pidfile_remove(const char *path)
{
	(void)unlink(path);
	if (pidfile_fd != -1)
		close(pidfile_fd);
	pidfile_fd = -1;
}
