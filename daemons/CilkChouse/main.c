/*
 * CilkChouse — the clearinghouse of one parallel job: started by the
 * job's root, it keeps the workers, the pool of work units and the
 * books that make every result count once, and starts the job manager
 * that has the macroscheduler recruit workers (CilkChouse(8)).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chouse.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkChouse [-fnvV] [-c file] [-k file] [-o key=value] "
	    "[-R file] [-r fd]\n"
	    "                  [-t seconds] -- program [arg ...]\n"
	    "  -k file     checkpoint the books to file every second\n"
	    "  -R file     recover the job from the checkpoint in file\n"
	    "  -r fd       write our UDP port to fd once we listen\n"
	    "  -t seconds  silence after which a worker is lost "
	    "(default 3)\n"
	    "Started by a program linked with the cilknow runtime "
	    "(cilknow(3)).\n");
	exit(status);
}

static int
opt(int ch, const char *arg, void *p)
{
	struct chouse *h = p;
	const char *errstr;
	char *end;

	switch (ch) {
	case 'k':
		h->h_ckpt_path = arg;
		return 0;
	case 'R':
		h->h_recover_path = arg;
		return 0;
	case 'r':
		h->h_report_fd = (int)strtonum(arg, 0, 1024, &errstr);
		return errstr == NULL ? 0 : -1;
	case 't':
		h->h_timeout = strtod(arg, &end);
		return *arg != '\0' && *end == '\0' && h->h_timeout > 0 &&
		    h->h_timeout < 3600 ? 0 : -1;
	}
	return -1;
}

static void
report_port(struct chouse *h)
{
	char line[16];
	int n;

	if (h->h_report_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%u\n",
	    msg_ep_addr(h->h_dc.dc_ep)->ma_port);
	if (write(h->h_report_fd, line, (size_t)n) != n)
		log_warn("%s", __func__);
	close(h->h_report_fd);
	h->h_report_fd = -1;
}

int
main(int argc, char *argv[])
{
	static struct chouse h;
	struct daemon_args da;
	struct dctx_spec sp = {
		.ds_prog = "CilkChouse",
		.ds_keys = MSG_KR_USER,
		.ds_default_listen = "0.0.0.0",
		.ds_table = NULL,
		.ds_ntable = CH_HANDLERS,
		.ds_no_pidfile = 1,	/* one per job */
		/* Read at start only (ch_host): cilknow.conf(5), RELOAD. */
		.ds_restart = (const char *const[]){ "broker", NULL },
	};

	h.h_report_fd = -1;
	h.h_timeout = 3;
	h.h_jm_fd = -1;
	daemon_getopt(&da, argc, argv, "CilkChouse", "k:R:r:t:", opt, &h, usage);
	if (optind >= argc)
		usage(CLI_EXIT_USAGE);
	h.h_argc = argc - optind;
	h.h_argv = argv + optind;
	sp.ds_table = ch_table();
	if (cn_tree_init(&h.h_tree) == -1 ||
	    (h.h_w = calloc(16, sizeof(*h.h_w))) == NULL)
		err(1, "calloc");
	h.h_capw = 16;
	h.h_nw = 1;			/* worker ids start at 1 */
	dctx_start(&h.h_dc, &sp, &da, &h);
	h.h_user = msg_keyring_user_name(h.h_dc.dc_keys);
	if (ch_host(&h) == -1)
		errx(1, "cannot tell our own address");
	if (h.h_recover_path != NULL && ch_recover(&h) == -1)
		err(1, "recover from %s", h.h_recover_path);
	ch_start(&h);
	dctx_ready(&h.h_dc);
	report_port(&h);
	if (ch_jobmgr_start(&h) == -1)
		log_warn("cannot start the job manager; the job runs "
		    "here alone");
	if (dctx_run(&h.h_dc) == -1)
		log_warn("event loop");
	/* Closing its pipe ends the job manager: it unregisters. */
	ch_jobmgr_reap(&h, 1);
	dctx_stop(&h.h_dc);
	cn_tree_fini(&h.h_tree);
	free(h.h_w);
	free(h.h_results);
	free(h.h_victims);
	free(h.h_members);
	free(h.h_ckpt_rec);
	return h.h_exit;
}
