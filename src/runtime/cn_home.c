/*
 * cn_home — a checkpointing root leaves its job with its home node
 * manager (CILKNOW_HOME=HOST:PORT): every CN_HOME_EVERY seconds a
 * ROOT_BACKUP holding the job's recovery command, signed with the
 * user's key for that node and purpose only, so that the node manager
 * restarts it with -Recover if this process dies before the job ends;
 * a ROOT_DONE when it ends.  The signature is made again every
 * CN_HOME_RESEAL seconds: the node restarts only from a backup signed
 * recently (root_restart_window, cilknow.conf(5)), so an old one kept
 * by a compromised node manager cannot start the job again later.
 * UDP may lose any of them: the backups repeat, and a lost ROOT_DONE
 * is harmless, as the node manager restarts nothing whose checkpoint
 * is gone (the clearinghouse removes it when the job ends).
 */
#include "cn_rt.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mono.h"
#include "proto_root.h"

#define CN_HOME_EVERY	2.0	/* seconds between backups */
#define CN_HOME_RESEAL	60.0	/* seconds between signatures */
#define CN_HOME_DONES	3	/* ROOT_DONE copies */
#define CN_HOME_DEFAULT	"127.0.0.1:7411"

extern char **environ;

static void
home_say(const struct cn_ctx *c, const char *what)
{
	fprintf(stderr, "%s: cilknow: CILKNOW_HOME: %s; the job will not "
	    "be restarted automatically\n", c->c_prog->cp_name, what);
}

/*
 * Interrupted (^C, kill): the user ended the job, whose restart would
 * surprise them; the home forgets it, the checkpoint stays for a
 * recovery by hand.  Then the signal does what it did before.
 */
static void
on_end_signal(struct evloop *loop, int signo, void *arg)
{
	struct cn_ctx *c = arg;
	sigset_t set;

	(void)loop;
	cn_home_done(c);
	(void)signal(signo, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, signo);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)raise(signo);
}

/* Catches signo unless it is ignored (as ^C is for a shell's '&'). */
static void
catch_end(struct cn_ctx *c, int signo)
{
	struct sigaction sa;

	if (sigaction(signo, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
	    evloop_signal(c->c_loop, signo, on_end_signal, c) == -1)
		fprintf(stderr, "%s: cilknow: cannot catch signal %d: %s\n",
		    c->c_prog->cp_name, signo, strerror(errno));
}

/* Signs the description now, for the home node, as a root's backup. */
static int
home_seal(struct cn_ctx *c)
{
	static uint8_t signed_desc[MSG_PAYLOAD_MAX];
	size_t sn;

	c->c_home_desc.de_issued_ms = now_real_ms();
	if ((sn = proto_desc_seal_for(&c->c_home_desc, PROTO_DESC_ROOT,
	    c->c_keys, signed_desc, sizeof(signed_desc))) == 0)
		return -1;
	c->c_home_b.rb_desc = signed_desc;
	c->c_home_b.rb_desclen = sn;
	if ((c->c_home_len = proto_root_backup_enc(&c->c_home_b,
	    c->c_home_msg, MSG_PAYLOAD_MAX)) == 0)
		return -1;
	c->c_home_sealed = now_mono();
	return 0;
}

int
cn_home_open(struct cn_ctx *c, const char *ckpt, const char *self,
    int argc, char **argv)
{
	static uint8_t signed_desc[MSG_PAYLOAD_MAX];
	const char *home = getenv("CILKNOW_HOME");
	struct proto_desc d;
	char cwd[PROTO_PATH_MAX], path[PROTO_PATH_MAX + 16];
	uint64_t start;
	size_t sn;
	int i, n = 0;

	if (ckpt == NULL || (home != NULL && strcmp(home, "none") == 0))
		return 0;
	/* By default the node manager of this workstation, its default port. */
	if (home == NULL || *home == '\0')
		home = CN_HOME_DEFAULT;
	if (msg_addr_parse(&c->c_home, home, 7411) == -1) {
		home_say(c, "bad or unknown address");
		return -1;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL ||
	    proto_root_pid_start((long)getpid(), &start) == -1) {
		home_say(c, strerror(errno));
		return -1;
	}
	/* The node manager runs it from cwd too, but names it absolutely. */
	if (snprintf(path, sizeof(path), "%s%s%s", PROTO_RECOVER_FLAG,
	    ckpt[0] == '/' ? "" : cwd, ckpt[0] == '/' ? ckpt :
	    "/") >= (int)sizeof(path) || (ckpt[0] != '/' &&
	    strlcat(path, ckpt, sizeof(path)) >= sizeof(path))) {
		home_say(c, "checkpoint path too long");
		return -1;
	}
	memset(&d, 0, sizeof(d));
	strlcpy(d.de_user, c->c_user, sizeof(d.de_user));
	strlcpy(d.de_cwd, cwd, sizeof(d.de_cwd));
	/* The node it is for, as this process names it (HOST:PORT). */
	msg_addr_text(&c->c_home, d.de_node, sizeof(d.de_node));
	d.de_job = (uint32_t)getpid();	/* a root's: its pid, signed */
	d.de_pri = 1;
	if (argc + 2 > PROTO_ARGS_MAX) {
		home_say(c, "too many arguments");
		return -1;
	}
	d.de_argv[d.de_argc++] = (char *)(uintptr_t)self;
	d.de_argv[d.de_argc++] = path;
	for (i = 0; i < argc; i++)
		d.de_argv[d.de_argc++] = argv[i];
	/* All of it, CILKNOW_CONF and CILKNOW_HOME too: a root needs them. */
	for (i = 0; environ[i] != NULL && n < PROTO_ARGS_MAX; i++)
		if (strchr(environ[i], '=') != NULL && environ[i][0] != '=' &&
		    strlen(environ[i]) < PROTO_ARG_MAX)
			d.de_env[n++] = environ[i];
	d.de_envc = (uint16_t)n;
	/* A copy of its own, to be signed again (home_seal). */
	if ((sn = proto_desc_enc(&d, signed_desc, sizeof(signed_desc))) == 0 ||
	    proto_desc_dec(&c->c_home_desc, signed_desc, sn) == -1) {
		home_say(c, "the job description is too large");
		return -1;
	}
	memset(&c->c_home_b, 0, sizeof(c->c_home_b));
	c->c_home_b.rb_pid = (uint32_t)getpid();
	c->c_home_b.rb_start = start;
	if ((c->c_home_msg = malloc(MSG_PAYLOAD_MAX)) == NULL ||
	    home_seal(c) == -1) {
		free(c->c_home_msg);
		c->c_home_msg = NULL;
		proto_desc_free(&c->c_home_desc);
		home_say(c, "the job description is too large");
		return -1;
	}
	memset(&c->c_home_done, 0, sizeof(c->c_home_done));
	c->c_home_done.rd_pid = c->c_home_b.rb_pid;
	c->c_home_done.rd_start = start;
	strlcpy(c->c_home_done.rd_ckpt, path + strlen(PROTO_RECOVER_FLAG),
	    sizeof(c->c_home_done.rd_ckpt));
	catch_end(c, SIGINT);
	catch_end(c, SIGTERM);
	catch_end(c, SIGHUP);
	cn_home_tick(c, now_mono());
	return 0;
}

void
cn_home_tick(struct cn_ctx *c, double now)
{
	if (c->c_home_msg == NULL || now - c->c_home_at < CN_HOME_EVERY)
		return;
	c->c_home_at = now;
	/* A failure keeps the last backup: it only ages. */
	if (now - c->c_home_sealed >= CN_HOME_RESEAL && home_seal(c) == -1)
		fprintf(stderr, "%s: cilknow: CILKNOW_HOME: cannot sign the "
		    "backup again\n", c->c_prog->cp_name);
	(void)msg_ep_send(c->c_ep, &c->c_home, MSG_SCHEME_USER,
	    PROTO_H_ROOT_BACKUP, c->c_home_msg, c->c_home_len);
}

void
cn_home_done(struct cn_ctx *c)
{
	uint8_t buf[PROTO_PATH_MAX + 32];
	size_t len;
	int i;

	if (c->c_home_msg == NULL)
		return;
	free(c->c_home_msg);
	c->c_home_msg = NULL;
	proto_desc_free(&c->c_home_desc);
	if ((len = proto_root_done_enc(&c->c_home_done, buf,
	    sizeof(buf))) == 0)
		return;
	for (i = 0; i < CN_HOME_DONES; i++) {
		(void)msg_ep_send(c->c_ep, &c->c_home, MSG_SCHEME_USER,
		    PROTO_H_ROOT_DONE, buf, len);
		if (i + 1 < CN_HOME_DONES)
			usleep(20000);
	}
}
