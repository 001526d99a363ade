/* CilkNodeManager — one per workstation: lends it while its owner is away. */
#include <sys/socket.h>
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "log.h"
#include "msg_keyring.h"
#include "node.h"
#include "priv.h"

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkNodeManager [-fknvV] [-c file] [-o key=value]\n"
	    "  -f  stay in the foreground, log to stderr\n"
	    "  -k  end every worker of this node, then exit\n"
	    "  -n  check the configuration and keys, then exit\n");
	exit(status);
}

static const struct msg_handler handlers[PROTO_H_MAX] = {
	[MSG_H_PONG] = { "pong", MSG_SCHEMES_ALL, node_on_pong },
	[PROTO_H_NODE_ACK] = { "node-ack",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), node_on_ack },
	[PROTO_H_ASSIGN] = { "assign", MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER),
	    node_on_assign },
	[PROTO_H_PUSH] = { "push", MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER),
	    node_on_push },
	[PROTO_H_JOB_GONE] = { "job-gone",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), node_on_job_gone },
	[PROTO_H_ERROR] = { "error", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    node_on_error },
	[PROTO_H_DESC] = { "desc", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    node_on_desc },
	[PROTO_H_OUTPUT_ACK] = { "output-ack",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), node_on_output_ack },
	[PROTO_H_STAGE] = { "stage", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    node_on_stage },
	[PROTO_H_PAIR_REQ] = { "pair-req",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), node_on_pair_req },
	[PROTO_H_PAIR] = { "pair", MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER),
	    node_on_pair },
	[PROTO_H_PRED_REQ] = { "pred-req", MSG_SCHEMES_ALL,
	    node_on_pred_req },
	[PROTO_H_PRED_PUSH] = { "pred-push",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), node_on_pred_push },
	[PROTO_H_ROOT_BACKUP] = { "root-backup",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), node_on_root_backup },
	[PROTO_H_ROOT_DONE] = { "root-done",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), node_on_root_done },
	[PROTO_H_PROC_ASK] = { "proc-ask", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    node_on_proc_ask },
	[PROTO_H_HIST_REQ] = { "hist-req", MSG_SCHEMES_ALL,
	    node_on_hist_req },
};

static int	node_limits(struct node *, char *, size_t);

/* Read at start only (beyond dctx's own): see cilknow.conf(5), RELOAD. */
static const char *const restart_keys[] = {
	"broker",		/* check */
	"cgroup",		/* node_privileged_setup */
	"input_devices",	/* what is open stays open */
	"logind",		/* a bus once connected stays */
	"munge_socket", "user_keys",	/* the engine's view (view.c) */
	"quantum", "register_interval", "stop_grace", "stop_grace_fast",
	"timeout",		/* main */
	"sensors",		/* check */
	"service_user",		/* the engine's drop */
	"slots",		/* node_slots_init */
	"state_dir",		/* check */
	"worker_cpu_idle", "worker_cpu_weight", "worker_io_weight",
	"worker_memory_high", "worker_memory_max", "worker_pids_max",
				/* node_limits */
	NULL
};

static int
opt(int ch, const char *arg, void *endp)
{
	(void)arg;
	if (ch != 'k')
		return -1;
	*(int *)endp = 1;
	return 0;
}

/* -k: the configuration's run_dir and stop_grace, then endall.c. */
static int
end_workers(const struct cli_common *cc)
{
	struct conf *conf;
	char run_dir[PATH_MAX];
	double grace;
	int rc;

	if ((conf = cli_conf_load(cc, "CilkNodeManager")) == NULL)
		return CLI_EXIT_USAGE;
	if (conf_get_path(conf, "run_dir", run_dir, sizeof(run_dir)) == -1 ||
	    conf_get_seconds(conf, "stop_grace", &grace) == -1) {
		warnx("run_dir or stop_grace: bad value");
		conf_free(conf);
		return CLI_EXIT_USAGE;
	}
	rc = node_end_workers(run_dir, grace);
	conf_free(conf);
	return rc;
}

static int
check(struct dctx *dc, char *err, size_t errlen)
{
	struct node *n = dc->dc_arg;
	const char *sensors = conf_get(dc->dc_conf, "sensors");

	if (conf_get_path(dc->dc_conf, "state_dir", n->n_state_dir,
	    sizeof(n->n_state_dir)) == -1 ||
	    conf_get_path(dc->dc_conf, "run_dir", n->n_run_dir,
	    sizeof(n->n_run_dir)) == -1) {
		snprintf(err, errlen, "state_dir or run_dir: bad path");
		return -1;
	}
	/*
	 * Our own folders; the launch pads make theirs inside, and the
	 * engine keeps its files in state_dir/engine, the one folder the
	 * service user may write.
	 */
	if (snprintf(n->n_engine_dir, sizeof(n->n_engine_dir), "%s/engine",
	    n->n_state_dir) >= (int)sizeof(n->n_engine_dir)) {
		snprintf(err, errlen, "state_dir: path too long");
		return -1;
	}
	if ((mkdir(n->n_state_dir, 0755) == -1 && errno != EEXIST) ||
	    (mkdir(n->n_engine_dir, 0700) == -1 && errno != EEXIST) ||
	    (mkdir(n->n_run_dir, 0755) == -1 && errno != EEXIST)) {
		snprintf(err, errlen, "%s, %s or %s: %s", n->n_state_dir,
		    n->n_engine_dir, n->n_run_dir, strerror(errno));
		return -1;
	}
	if (node_limits(n, err, errlen) == -1)
		return -1;
	if (node_guest_nice(dc->dc_conf) == -1) {
		snprintf(err, errlen, "worker_nice = %s: a nice level from 0 "
		    "to 19 (a guest never comes before the owner)",
		    conf_get(dc->dc_conf, "worker_nice"));
		return -1;
	}
	if (strncmp(sensors, "file:", 5) == 0)
		strlcpy(n->n_sensor_path, sensors + 5,
		    sizeof(n->n_sensor_path));
	if (n->n_pred_all == NULL &&
	    node_pred_init(n, err, errlen) == -1)
		return -1;
	if (cli_find_program("CilkLaunchPad", n->n_lpad_bin,
	    sizeof(n->n_lpad_bin)) == -1) {
		snprintf(err, errlen, "%s: cannot run it", n->n_lpad_bin);
		return -1;
	}
	if (msg_addr_parse(&n->n_broker, conf_get(dc->dc_conf, "broker"),
	    7410) == -1) {
		snprintf(err, errlen, "broker %s: bad or unknown address",
		    conf_get(dc->dc_conf, "broker"));
		return -1;
	}
	return 0;
}

/* The limits of every worker's cgroup (cilknow.conf(5)). */
static int
node_limits(struct node *n, char *err, size_t errlen)
{
	static const char *const keys[] = { "worker_memory_high",
	    "worker_memory_max", "worker_pids_max", "worker_cpu_weight",
	    "worker_io_weight" };
	struct contain_limits *l = &n->n_limits;
	uint64_t v[5];
	const char *text;
	char *end;
	size_t i;

	for (i = 0; i < 5; i++) {
		text = conf_get(n->n_dc.dc_conf, keys[i]);
		if (i < 2) {
			if (contain_parse_size(text, &v[i]) == 0)
				continue;
		} else if (strcmp(text, "none") == 0) {
			v[i] = 0;
			continue;
		} else {
			errno = 0;
			v[i] = strtoull(text, &end, 10);
			if (errno == 0 && *end == '\0' && text[0] != '-' &&
			    (i == 2 || (v[i] >= 1 && v[i] <= 10000)))
				continue;
		}
		snprintf(err, errlen, "%s = %s: not a valid limit", keys[i],
		    text);
		return -1;
	}
	memset(l, 0, sizeof(*l));
	l->cl_memory_high = v[0];
	l->cl_memory_max = v[1];
	l->cl_pids_max = v[2];
	l->cl_cpu_weight = (uint32_t)v[3];
	l->cl_io_weight = (uint32_t)v[4];
	l->cl_cpu_idle = strcmp(conf_get(n->n_dc.dc_conf, "worker_cpu_idle"),
	    "yes") == 0;
	return 0;
}

/*
 * What needs root and comes before the engine exists: the workers'
 * cgroups, the engine's folder and who the engine will be.
 */
static void
node_privileged_setup(struct node *n, const struct priv_user *pu)
{
	char err[512], name[PATH_MAX + 16], text[PATH_MAX + 64], *p;

	snprintf(name, sizeof(name), "node-%s-%u", n->n_name,
	    (unsigned)msg_ep_addr(n->n_dc.dc_ep)->ma_port);
	for (p = name; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
		    "VWXYZ0123456789._-", *p) == NULL)
			*p = '_';
	if (contain_base_init(&n->n_cb, conf_get(n->n_dc.dc_conf, "cgroup"),
	    name, err, sizeof(err)) == -1)
		fatalx("cgroup: %s", err);
	if (n->n_cb.cb_mech == CONTAIN_TREE)
		log_warning("workers are contained as process trees, which is "
		    "weaker than cgroups: %s; their limits are not enforced",
		    n->n_cb.cb_why);
	else if (contain_unenforced(&n->n_cb) != 0)
		log_warning("worker limits not enforced here (no such "
		    "controller for workers): %s", contain_ctl_names(
		    contain_unenforced(&n->n_cb), text, sizeof(text)));
	log_info("workers: %s", contain_base_describe(&n->n_cb, text,
	    sizeof(text)));
	n->n_log_gid = -1;
	if (pu == NULL)
		return;
	/* No group: input devices are the parent's (input.c). */
	n->n_log_gid = pu->pu_gid;
	if (chown(n->n_engine_dir, pu->pu_uid, pu->pu_gid) == -1 ||
	    chmod(n->n_engine_dir, 0700) == -1)
		fatal("%s", n->n_engine_dir);
}

/* The node's name: the address it listens on, else the host name. */
static void
node_name(struct node *n)
{
	const struct msg_addr *a = msg_ep_addr(n->n_dc.dc_ep);
	static const uint8_t zero[16];
	char text[64], *colon;

	if (memcmp(a->ma_addr, zero, sizeof(zero)) != 0) {
		msg_addr_text(a, text, sizeof(text));
		if ((colon = strrchr(text, ':')) != NULL)
			*colon = '\0';
		strlcpy(n->n_name, text, sizeof(n->n_name));
	} else if (gethostname(n->n_name, sizeof(n->n_name)) == -1)
		strlcpy(n->n_name, "localhost", sizeof(n->n_name));
}

/*
 * Before the split into the privileged parent and the engine (dctx's
 * ds_prepare), as root if started so: who we are, our folders and the
 * workers' cgroups; pu is whom the engine becomes (NULL: not root).
 */
static int
prepare(struct dctx *dc, const struct priv_user *pu, char *err,
    size_t errlen)
{
	struct node *n = dc->dc_arg;
	struct passwd *pw;

	n->n_root = geteuid() == 0;
	if ((pw = getpwuid(geteuid())) == NULL) {
		snprintf(err, errlen, "who am I? no password entry for uid %d",
		    (int)geteuid());
		return -1;
	}
	strlcpy(n->n_self, pw->pw_name, sizeof(n->n_self));
	n->n_interval = dctx_seconds(dc, "register_interval", 60);
	n->n_grace = dctx_seconds(dc, "stop_grace", 60);
	n->n_grace_fast = dctx_seconds(dc, "stop_grace_fast", 1);
	n->n_timeout = dctx_seconds(dc, "timeout", 3);
	n->n_quantum = dctx_seconds(dc, "quantum", 5);
	randombytes_buf(&n->n_boot, sizeof(n->n_boot));
	cookie_init(&n->n_cookie);
	node_name(n);
	n->n_listen = *msg_ep_addr(dc->dc_ep);
	if (check(dc, err, errlen) == -1)
		return -1;
	node_privileged_setup(n, pu);
	node_roots_prepare();
	n->n_cpu_quota = contain_cpu_quota();
	if (pu != NULL && node_view(n, err, errlen) == -1)
		return -1;
	n->n_prepared = 1;
	return 0;
}

/* ds_check: in the engine, where prepare() did it already, or for -n. */
static int
check_engine(struct dctx *dc, char *err, size_t errlen)
{
	struct node *n = dc->dc_arg;

	return n->n_prepared ? 0 : check(dc, err, errlen);
}

int
main(int argc, char *argv[])
{
	static struct node n;
	struct daemon_args da;
	sigset_t usr1;
	int end = 0;
	struct dctx_spec sp = {
		.ds_prog = "CilkNodeManager",
		.ds_keys = MSG_KR_CLUSTER | MSG_KR_USERS,
		.ds_principal = "node",
		.ds_default_listen = "0.0.0.0",
		.ds_default_port = PROTO_NODE_PORT,
		.ds_table = handlers,
		.ds_ntable = PROTO_H_MAX,
		.ds_check = check_engine,
		.ds_check_as_root = 1,	/* -n: the engine's folder is root's */
		.ds_restart = restart_keys,
		.ds_privsep = 1,
		.ds_prepare = prepare,
		.ds_parent = &node_parent,
		.ds_chan_msg = node_chan_msg,
	};

	setproctitle_init(argc, argv, environ);
	daemon_getopt(&da, argc, argv, "CilkNodeManager", "k", opt, &end,
	    usage);
	if (optind != argc)
		usage(CLI_EXIT_USAGE);
	if (end)
		return end_workers(&da.da_cc);
	/*
	 * -k's SIGUSR1 (leave.c) waits, pending, until the parent and the
	 * engine read it: it may come as soon as the pid file is.
	 */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL) == -1)
		fatal("sigprocmask");
	TAILQ_INIT(&n.n_workers);
	/* Returns in the engine only: the parent lives in parent.c. */
	dctx_start(&n.n_dc, &sp, &da, &n);
	node_slots_init(&n);
	node_hist_start(&n);
	node_idle_start(&n);
	node_register_start(&n);
	node_workers_start(&n);
	node_pair_start(&n);
	node_roots_start(&n);
	node_leave_start(&n);
	dctx_ready(&n.n_dc);
	if (dctx_run(&n.n_dc) == -1)
		log_warn("event loop");
	/* Workers go on without us; a restarted node manager adopts them. */
	proto_push_free(&n.n_push);
	node_pred_fini(&n);
	node_roots_stop();
	while (!TAILQ_EMPTY(&n.n_workers)) {
		struct worker *w = TAILQ_FIRST(&n.n_workers);

		TAILQ_REMOVE(&n.n_workers, w, w_entry);
		free(w);
	}
	dctx_stop(&n.n_dc);
	return 0;
}
