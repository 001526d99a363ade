/*
 * CilkChouse: the job's macroscheduling.  As in Cilk-NOW, the
 * clearinghouse starts the job manager with the command line workers
 * run: the program with -NoChouse -Host=H -Port=P.  The job manager
 * reads its stdin, a pipe from us: when we end, for whatever reason,
 * it unregisters the job and every worker is stopped.
 */
#include "chouse.h"
#include "proto_kill.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mono.h"

/*
 * Our address as other workstations see it: the local address of the
 * route to the broker (127.0.0.1 on a CilkLocal cluster), else our host
 * name.
 */
int
ch_host(struct chouse *h)
{
	struct msg_addr b;
	struct sockaddr_storage ss, me;
	socklen_t sl, ml = sizeof(me);
	char host[NI_MAXHOST];
	int fd;

	if (msg_addr_parse(&b, conf_get(h->h_dc.dc_conf, "broker"), 7410) ==
	    0 && (sl = msg_addr_to_sockaddr(&b, &ss)) > 0 &&
	    (fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) != -1) {
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0 &&
		    getsockname(fd, (struct sockaddr *)&me, &ml) == 0 &&
		    getnameinfo((struct sockaddr *)&me, ml, host,
		    sizeof(host), NULL, 0, NI_NUMERICHOST) == 0 &&
		    strcmp(host, "0.0.0.0") != 0) {
			close(fd);
			strlcpy(h->h_host, host, sizeof(h->h_host));
			return 0;
		}
		close(fd);
	}
	if (gethostname(h->h_host, sizeof(h->h_host)) == -1)
		return -1;
	h->h_host[sizeof(h->h_host) - 1] = '\0';
	return 0;
}

int
ch_jobmgr_start(struct chouse *h)
{
	char path[PATH_MAX + 32], hostarg[300], portarg[32];
	char confarg[PATH_MAX + 8];
	const char *conf = getenv("CILKNOW_CONF");
	const char **args;
	int fds[2], i, k = 0;

	(void)cli_find_program("CilkJobManager", path, sizeof(path));
	snprintf(hostarg, sizeof(hostarg), "-Host=%s", h->h_host);
	snprintf(portarg, sizeof(portarg), "-Port=%u",
	    msg_ep_addr(h->h_dc.dc_ep)->ma_port);
	if ((args = calloc((size_t)h->h_argc + 16, sizeof(*args))) == NULL)
		return -1;
	args[k++] = path;
	args[k++] = "-f";
	args[k++] = "-W";
	if (h->h_dc.dc_args.da_cc.cc_conf_path != NULL) {
		args[k++] = "-c";
		args[k++] = h->h_dc.dc_args.da_cc.cc_conf_path;
		conf = h->h_dc.dc_args.da_cc.cc_conf_path;
	}
	args[k++] = "--";
	args[k++] = h->h_argv[0];
	args[k++] = "-NoChouse";
	args[k++] = hostarg;
	args[k++] = portarg;
	if (conf != NULL) {
		/* Workers do not inherit CILKNOW_*: name the file. */
		snprintf(confarg, sizeof(confarg), "-Conf=%s", conf);
		args[k++] = confarg;
	}
	args[k++] = "--";
	for (i = 1; i < h->h_argc; i++)
		args[k++] = h->h_argv[i];
	args[k] = NULL;
	if (pipe2(fds, O_CLOEXEC) == -1) {
		free(args);
		return -1;
	}
	switch ((h->h_jm_pid = fork())) {
	case -1:
		free(args);
		close(fds[0]);
		close(fds[1]);
		return -1;
	case 0:
		if (dup2(fds[0], STDIN_FILENO) == -1)
			_exit(127);
		execvp(args[0], (char *const *)(uintptr_t)args);
		fprintf(stderr, "CilkChouse: %s: %s\n", args[0],
		    strerror(errno));
		_exit(127);
	}
	free(args);
	close(fds[0]);
	h->h_jm_fd = fds[1];
	/* A job manager that does not read must not stop us. */
	if (fcntl(h->h_jm_fd, F_SETFL, O_NONBLOCK) == -1)
		log_warn("%s: fcntl", __func__);
	return 0;
}

/*
 * CilkKill ended the job: its workers are stopped by their nodes, and
 * the root, our parent on the user's terminal, is ended as by SIGTERM
 * (so it is not restarted from its checkpoint); we go with it.
 */
static void
job_killed(struct chouse *h)
{
	pid_t root = getppid();

	log_warnx("the job was ended by CilkKill: ending the root (pid %ld)",
	    (long)root);
	/* Our parent, and the root that joined us: nobody else. */
	if (h->h_nw > 1 && h->h_w[1].w_root &&
	    h->h_w[1].w_pid == (uint64_t)root && kill(root, SIGTERM) == -1)
		log_warn("kill %ld", (long)root);
	h->h_exit = 1;
	evloop_break(h->h_dc.dc_loop);
}

/* Collects the job manager's exit; with wait, closes its pipe first. */
void
ch_jobmgr_reap(struct chouse *h, int wait)
{
	double until = now_mono() + 5;
	int status;
	pid_t r;

	if (h->h_jm_pid <= 0)
		return;
	if (wait && h->h_jm_fd != -1) {
		close(h->h_jm_fd);
		h->h_jm_fd = -1;
	}
	do {
		r = waitpid(h->h_jm_pid, &status, WNOHANG);
		if (r == h->h_jm_pid) {
			if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
				log_warning("no broker answered: the job runs "
				    "on this workstation alone");
			else if (WIFEXITED(status) &&
			    WEXITSTATUS(status) == PROTO_EXIT_KILLED)
				job_killed(h);
			else if (!wait)
				log_info("the job manager ended (status "
				    "%d)", status);
			h->h_jm_pid = 0;
			return;
		}
		if (wait)
			usleep(2000);
	} while (wait && now_mono() < until);
	if (wait) {
		(void)kill(h->h_jm_pid, SIGTERM);
		(void)waitpid(h->h_jm_pid, &status, 0);
		h->h_jm_pid = 0;
	}
}
