/*
 * CilkJobManager -D (CilkRun --detach): the job manager stays, the
 * command returns once the broker has registered the job.  The process
 * CilkRun started forks; the child leaves the terminal's session and
 * goes on as the job manager, telling the parent the job id through a
 * pipe once the broker acknowledged it.  The parent prints it and
 * exits 0; if the pipe closes without it, the child failed (it said why
 * on the terminal, e.g. no broker) and the parent exits as it did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmgr.h"
#include "log.h"

static void __attribute__((noreturn))
parent(int fd, pid_t child)
{
	char buf[32];
	size_t len = 0;
	ssize_t n;
	int status;

	while (len < sizeof(buf) - 1 &&
	    (n = read(fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len > 1 && buf[len - 1] == '\n') {
		/* Registered: the job id, for scripts as sbatch --parsable. */
		fputs(buf, stdout);
		exit(fflush(stdout) == EOF ? 1 : 0);
	}
	while (waitpid(child, &status, 0) == -1)
		if (errno != EINTR)
			_exit(1);
	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1);
	_exit(1);
}

int
jobmgr_detach_fork(struct jobmgr *j)
{
	int fds[2], null;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid > 0) {
		close(fds[1]);
		parent(fds[0], pid);
	}
	close(fds[0]);
	j->j_detach_fd = fds[1];
	/* Out of the terminal's session: its hangup and ^C are not ours. */
	if (setsid() == -1)
		return -1;
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    dup2(null, STDIN_FILENO) == -1)
		return -1;
	if (null != STDIN_FILENO)
		close(null);
	return 0;
}

void
jobmgr_detached(struct jobmgr *j)
{
	char buf[32];
	int null, len;

	if (j->j_detach_fd == -1)
		return;
	len = snprintf(buf, sizeof(buf), "%u\n", j->j_job);
	if (write(j->j_detach_fd, buf, (size_t)len) != len)
		log_warn("%s: to CilkRun", __func__);
	close(j->j_detach_fd);
	j->j_detach_fd = -1;
	/* Nobody reads our terminal any more: the log goes to syslog. */
	log_init(0, "CilkJobManager", j->j_dc.dc_args.da_cc.cc_verbose);
	log_info("job %u detached", j->j_job);
	if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) != -1) {
		(void)dup2(null, STDOUT_FILENO);
		(void)dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
}
