/*
 * cn_start — a root starts its clearinghouse: CilkChouse, found like
 * every sibling program (cli_find_program), in the foreground, telling
 * us its port through a pipe once it listens.
 */
#include "cn_rt.h"

#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mono.h"

/*
 * Seconds for CilkChouse to listen: it starts in well under one, but a
 * machine busy with other work (or a sanitized build) can take several.
 */
#define START_WAIT	30.0

int
cn_start_chouse(const char *conf, const char *ckpt, const char *recover,
    int argc, char **argv, pid_t *pid, uint16_t *port, char *why,
    size_t whylen)
{
	char path[PATH_MAX + 32], fdtext[16], line[32];
	const char **args;
	const char *errstr;
	struct pollfd pfd;
	double deadline;
	size_t len = 0;
	ssize_t n;
	int fds[2], i, k = 0, status, timedout = 0;

	(void)cli_find_program("CilkChouse", path, sizeof(path));
	if ((args = calloc((size_t)argc + 14, sizeof(*args))) == NULL ||
	    pipe2(fds, O_CLOEXEC) == -1) {
		snprintf(why, whylen, "%s", strerror(errno));
		free(args);
		return -1;
	}
	snprintf(fdtext, sizeof(fdtext), "%d", fds[1]);
	args[k++] = path;
	args[k++] = "-f";
	if (conf != NULL) {
		args[k++] = "-c";
		args[k++] = conf;
	}
	if (ckpt != NULL) {
		args[k++] = "-k";
		args[k++] = ckpt;
	}
	if (recover != NULL) {
		args[k++] = "-R";
		args[k++] = recover;
	}
	args[k++] = "-r";
	args[k++] = fdtext;
	args[k++] = "--";
	for (i = 0; i < argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	switch ((*pid = fork())) {
	case -1:
		snprintf(why, whylen, "fork: %s", strerror(errno));
		free(args);
		close(fds[0]);
		close(fds[1]);
		return -1;
	case 0:
		/* The clearinghouse does not outlive its root. */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (fcntl(fds[1], F_SETFD, 0) == -1)
			_exit(127);
		execvp(args[0], (char *const *)(uintptr_t)args);
		fprintf(stderr, "%s: %s\n", args[0], strerror(errno));
		_exit(127);
	}
	free(args);
	close(fds[1]);
	deadline = now_mono() + START_WAIT;
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	while (len < sizeof(line) - 1 && memchr(line, '\n', len) == NULL) {
		double left = deadline - now_mono();

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0) {
			timedout = 1;
			break;
		}
		if ((n = read(fds[0], line + len, sizeof(line) - 1 - len)) <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	*port = (uint16_t)strtonum(line, 1, 65535, &errstr);
	if (len == 0 || errstr != NULL) {
		if (timedout)
			snprintf(why, whylen, "%s did not listen within %g s",
			    path, START_WAIT);
		else
			snprintf(why, whylen, "%s did not start (it exited "
			    "before it listened; its error is above)", path);
		if (waitpid(*pid, &status, WNOHANG) == 0) {
			(void)kill(*pid, SIGTERM);
			(void)waitpid(*pid, &status, 0);
		}
		*pid = 0;
		return -1;
	}
	return 0;
}
