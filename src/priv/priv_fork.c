/*
 * priv_fork — the split into a privileged parent and an unprivileged
 * child, and the parent's whole life: it holds no network socket, reads
 * key files as root when told to reload, speaks to the service manager
 * for both, and lives exactly as long as its child.
 */
#include "priv.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mono.h"
#include "msg_munge.h"
#include "sdnotify.h"

/* The parent's state: one parent per process. */
struct priv_parent_state {
	struct priv_chan	*ps_chan;
	const struct priv_parent *ps_pp;
	int			 ps_stopping;	/* SIGTERM sent to the child */
	int			 ps_bad;	/* it spoke nonsense: not heard */
	struct evtimer		*ps_kill;	/* SIGKILL if it lingers */
	uint8_t			*ps_buf;	/* PRIV_MSG_MAX */
};

static struct priv_parent_state	ps;

#define PRIV_DRAIN_MAX	4096	/* the child's last messages read */


static void __attribute__((noreturn))
parent_exit(int status)
{
	if (ps.ps_pp->pp_exit != NULL)
		ps.ps_pp->pp_exit(ps.ps_pp->pp_arg);
	free(ps.ps_buf);
	ps.ps_buf = NULL;
	exit(status);
}

static void
kill_now(struct evloop *loop, void *arg)
{
	(void)loop;
	(void)arg;
	ps.ps_kill = NULL;
	log_warnx("the unprivileged process (pid %ld) did not stop within "
	    "%g s; killing it", (long)ps.ps_chan->pc_peer, PRIV_STOP_WAIT);
	if (kill(ps.ps_chan->pc_peer, SIGKILL) == -1 && errno != ESRCH)
		log_warn("kill %ld", (long)ps.ps_chan->pc_peer);
}

/* SIGTERM to the child once, SIGKILL if it is still there later. */
static void
stop_child(struct evloop *loop, int sig)
{
	if (kill(ps.ps_chan->pc_peer, sig) == -1 && errno != ESRCH)
		log_warn("kill %ld", (long)ps.ps_chan->pc_peer);
	if (ps.ps_stopping)
		return;
	ps.ps_stopping = 1;
	if ((ps.ps_kill = evloop_timer_add(loop, PRIV_STOP_WAIT, kill_now,
	    NULL)) == NULL)
		log_warn("stop timer");
}

/*
 * What the child sent before it ended is done before we go: its SIGCHLD
 * is read in the same poll as its last messages, and first (the signal
 * descriptor is older than the channel's), so a stop it decided just
 * before a restart's SIGTERM would be lost with us, and the restarted
 * daemon would not know it was decided.  Not from a child ended for
 * speaking nonsense.  Bounded: the channel holds what it holds.
 */
static void
drain(void)
{
	const struct priv_parent *pp = ps.ps_pp;
	const uint8_t *payload;
	uint16_t type;
	size_t len;
	int i, n = 0;

	if (ps.ps_bad || ps.ps_buf == NULL || pp->pp_last == NULL)
		return;
	for (i = 0; i < PRIV_DRAIN_MAX; i++) {
		if (priv_recv(ps.ps_chan, &type, ps.ps_buf, PRIV_MSG_MAX,
		    &payload, &len) != 1)
			break;
		if (type < PRIV_M_MAX)
			continue;	/* READY, WATCHDOG: moot now */
		if (pp->pp_last(ps.ps_chan, type, payload, len,
		    pp->pp_arg) == -1) {
			log_warnx("the unprivileged process's last words "
			    "were malformed; not heeded");
			break;
		}
		n++;
	}
	if (n > 0)
		log_debug("%d message%s of the unprivileged process done "
		    "after its end", n, n == 1 ? "" : "s");
}

/* Reaps the child if it is gone; the parent goes with it. */
static void
reap(void)
{
	pid_t pid;
	int st, code;

	do
		pid = waitpid(ps.ps_chan->pc_peer, &st, WNOHANG);
	while (pid == -1 && errno == EINTR);
	if (pid <= 0)
		return;
	if (WIFEXITED(st))
		code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		code = 128 + WTERMSIG(st);
	else
		return;		/* stopped or continued: not gone */
	if (ps.ps_stopping && code == 0)
		log_debug("the unprivileged process has stopped");
	else if (code == 0)
		log_info("the unprivileged process (pid %ld) has ended its "
		    "work; exiting", (long)pid);
	else if (WIFSIGNALED(st))
		log_warnx("the unprivileged process (pid %ld) was killed by "
		    "signal %d (%s); exiting", (long)pid, WTERMSIG(st),
		    strsignal(WTERMSIG(st)));
	else
		log_warnx("the unprivileged process (pid %ld) exited with "
		    "status %d; exiting", (long)pid, code);
	if (!ps.ps_stopping)
		sdnotify_printf("STOPPING=1");
	drain();
	parent_exit(code);
}

static void
on_signal(struct evloop *loop, int signo, void *arg)
{
	const struct priv_parent *pp = ps.ps_pp;

	(void)arg;
	switch (signo) {
	case SIGCHLD:
		if (pp->pp_children != NULL)
			pp->pp_children(pp->pp_arg);
		reap();
		return;
	case SIGHUP:
		if (ps.ps_stopping)
			return;
		sdnotify_printf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
		    (uint64_t)(now_mono() * 1e6));
		/* On success READY=1 comes with the child's answer. */
		if (pp->pp_reload == NULL ||
		    pp->pp_reload(ps.ps_chan, pp->pp_arg) == -1)
			sdnotify_printf("READY=1\nSTATUS=running; reload failed "
			    "at monotonic %.0f s", now_mono());
		return;
	default:
		/* The child logs its own "shutting down". */
		if (!ps.ps_stopping) {
			log_debug("%s: stopping the unprivileged process",
			    strsignal(signo));
			sdnotify_printf("STOPPING=1");
		}
		stop_child(loop, SIGTERM);
		return;
	}
}

/* A child that speaks nonsense is not trusted to go on. */
static void
bad_child(struct evloop *loop, const char *why)
{
	log_warnx("the unprivileged process (pid %ld) %s; ending it",
	    (long)ps.ps_chan->pc_peer, why);
	ps.ps_bad = 1;
	stop_child(loop, SIGKILL);
}

static void
on_chan(struct evloop *loop, int fd, short revents, void *arg)
{
	const struct priv_parent *pp = ps.ps_pp;
	char status[PRIV_STATUS_MAX + 1];
	const uint8_t *payload;
	uint16_t type;
	size_t len;
	int applied, rc;

	(void)revents;
	(void)arg;
	rc = priv_recv(ps.ps_chan, &type, ps.ps_buf, PRIV_MSG_MAX, &payload,
	    &len);
	if (rc == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (rc <= 0) {
		/* Gone, or closing on us: either way it ends. */
		evloop_del_fd(loop, fd);
		if (rc == -1)
			bad_child(loop, "sent a malformed message");
		else if (!ps.ps_stopping)
			stop_child(loop, SIGTERM);
		return;
	}
	switch (type) {
	case PRIV_M_READY:
		if (priv_status_dec(payload, len, status) == -1)
			break;
		sdnotify_printf("READY=1\nMAINPID=%ld\nSTATUS=%s",
		    (long)getpid(), status);
		return;
	case PRIV_M_WATCHDOG:
		if (len != 0)
			break;
		sdnotify_printf("WATCHDOG=1");
		return;
	case PRIV_M_RELOADED:
		if (priv_reloaded_dec(payload, len, &applied, status) == -1)
			break;
		sdnotify_printf("READY=1\nSTATUS=%s", status);
		return;
	default:
		if (type >= PRIV_M_MAX && pp->pp_msg != NULL &&
		    pp->pp_msg(ps.ps_chan, type, payload, len,
		    pp->pp_arg) == 0)
			return;
		break;
	}
	bad_child(loop, "sent a malformed or unexpected message");
}

static void __attribute__((noreturn))
parent_run(struct priv_chan *pc, int names, const struct priv_parent *pp)
{
	struct evloop *loop = pp->pp_loop;

	ps.ps_chan = pc;
	ps.ps_pp = pp;
	/* Before the hook, which may have news for the child already. */
	if (priv_chan_queue(pc, loop) == -1) {
		log_warn("privileged process: channel queue");
		stop_child(loop, SIGKILL);
	}
	if (pp->pp_forked != NULL)
		pp->pp_forked(pp->pp_arg);
	if ((ps.ps_buf = malloc(PRIV_MSG_MAX)) == NULL ||
	    evloop_signal(loop, SIGHUP, on_signal, NULL) == -1 ||
	    evloop_signal(loop, SIGTERM, on_signal, NULL) == -1 ||
	    evloop_signal(loop, SIGINT, on_signal, NULL) == -1 ||
	    evloop_signal(loop, SIGCHLD, on_signal, NULL) == -1 ||
	    evloop_add_fd(loop, pc->pc_fd, POLLIN, on_chan, NULL) == -1 ||
	    priv_names_parent(loop, names) == -1) {
		log_warn("privileged process");
		stop_child(loop, SIGKILL);
	}
	/* A child that died before SIGCHLD was ours to read. */
	reap();
	while (evloop_run(loop) == 0)
		continue;	/* only our exit ends the parent */
	log_warn("privileged process: event loop");
	stop_child(loop, SIGKILL);
	for (;;) {		/* without a loop, poll for the child */
		reap();
		(void)usleep(100000);
	}
}

int
priv_fork(struct priv_chan *pc, const struct priv_user *pu,
    const struct priv_parent *pp, char *err, size_t errlen)
{
	int sv[2], nv[2];
	pid_t pid, parent = getpid();

	pc->pc_fd = -1;
	pc->pc_peer = -1;
	pc->pc_q = NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		return -1;
	}
	/* The users' names (priv_names.c): questions and answers only. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, nv) == -1) {
		snprintf(err, errlen, "socketpair: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		close(nv[0]);
		close(nv[1]);
		return -1;
	}
	if (pid > 0) {
		close(sv[1]);
		close(nv[1]);
		pc->pc_fd = sv[0];
		pc->pc_peer = pid;
		parent_run(pc, nv[0], pp);
	}
	close(sv[0]);
	close(nv[0]);
	pc->pc_fd = sv[1];
	pc->pc_peer = parent;
	priv_names_child(nv[1]);
	msg_munge_set_names(priv_name_of_uid);
	/* The parent is MAINPID: only it may speak to systemd. */
	sdnotify_reset();
	if (pp->pp_view != NULL && priv_view_enter(pp->pp_view, err,
	    errlen) == -1)
		return -1;
	if (pu != NULL && priv_drop(pu, err, errlen) == -1)
		return -1;
	/* Set after the drop, which clears it. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) == -1) {
		snprintf(err, errlen, "PR_SET_PDEATHSIG: %s", strerror(errno));
		return -1;
	}
	if (getppid() != parent) {
		snprintf(err, errlen, "the privileged process is gone");
		return -1;
	}
	return 0;
}
