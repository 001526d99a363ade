/* CilkJobManager — one per job: registers it, serves its description. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jmacct.h"
#include "jmafter.h"
#include "jobmgr.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"

extern char **environ;

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkJobManager [-fnvV] [-c file] [-o key=value] "
	    "[-b broker] [-m max]\n"
	    "                      [-A job] [-C cpus] [-M size] [-p priority] "
	    "[-T tasks] [-t seconds]\n"
	    "                      -- program [arg ...]\n"
	    "  -A job      held until that job has ended successfully\n"
	    "  -C cpus     processors each task takes on its node\n"
	    "  -M size     memory each task needs (512M, 4G; MiB if no unit)\n"
	    "  -m max      useful workers at most (default: no limit)\n"
	    "  -p priority weight of the job's share (default 1)\n"
	    "  -R retries  with -T, give a task up after this many failures "
	    "(default 3)\n"
	    "  -T tasks    run tasks 0 to tasks-1, each until it exits 0\n"
	    "  -t seconds  end after this long\n"
	    "  -W          the job ends when stdin closes (started by "
	    "CilkChouse)\n"
	    "  -O pattern  each task's stdout (and stderr) into a file "
	    "(%%j %%t %%n %%%%)\n"
	    "  -E pattern  each task's stderr into a file\n"
	    "  -D          print the job id once registered and stay in the "
	    "background\n"
	    "  -I file     --stage-in: copy file to each task's folder\n"
	    "  -G glob     --stage-out: copy matching files back\n");
	exit(status);
}

static int
number(const char *arg, long min, long max, long *out)
{
	const char *errstr;

	*out = (long)strtonum(arg, min, max, &errstr);
	return errstr == NULL ? 0 : -1;
}

static int
opt(int ch, const char *arg, void *p)
{
	struct jobmgr *j = p;
	long v;
	char *end, why[64];

	switch (ch) {
	case 'W':
		j->j_watch = 1;
		return 0;
	case 'O':
		j->j_pattern[PROTO_STREAM_OUT] = arg;
		return 0;
	case 'E':
		j->j_pattern[PROTO_STREAM_ERR] = arg;
		return 0;
	case 'D':
		j->j_detach = 1;
		return 0;
	case 'A':
		if (number(arg, 1, UINT32_MAX, &v) == -1)
			return -1;
		j->j_after = (uint32_t)v;
		return 0;
	case 'I':
	case 'G':
		return jobmgr_stage_opt(j, ch, arg);
	case 'C':
		if (number(arg, 1, PROTO_SLOTS_MAX, &v) == -1)
			return -1;
		j->j_cpus = (uint16_t)v;
		return 0;
	case 'M':
		return cli_mem_mb(arg, &j->j_mem_mb, why, sizeof(why));
	case 'm':
		if (number(arg, 1, 1000000, &v) == -1)
			return -1;
		j->j_max = j->j_user_max = (uint32_t)v;
		return 0;
	case 'p':
		if (number(arg, 1, 1000, &v) == -1)
			return -1;
		j->j_pri = (uint32_t)v;
		return 0;
	case 'T':
		if (number(arg, 1, TASKS_MAX, &v) == -1)
			return -1;
		j->j_want_tasks = v;
		return 0;
	case 'R':
		return number(arg, 1, 1000, &j->j_retries);
	case 't':
		j->j_time_limit = strtod(arg, &end);
		return *arg != '\0' && *end == '\0' && j->j_time_limit > 0 &&
		    j->j_time_limit < 1e7 ? 0 : -1;
	}
	return -1;
}

static int
check(struct dctx *dc, char *err, size_t errlen)
{
	if (dc->dc_keys->kr_cluster_pub.ks_n == 0 &&
	    dc->dc_keys->kr_cluster.ks_n == 0) {
		snprintf(err, errlen, "cannot verify node managers: no "
		    "cluster public key at %s", conf_get(dc->dc_conf,
		    "cluster_pub"));
		return -1;
	}
	return 0;
}

/*
 * The description every worker gets, but for its task number.  What does
 * not fit is refused here, with why, never dropped: the one limit on an
 * argument or an environment entry is the wire's, PROTO_ARG_MAX bytes
 * with its NUL, whatever bytes it holds.
 */
static int
describe(struct jobmgr *j, int argc, char **argv, char *why, size_t whysz)
{
	struct proto_desc *d = &j->j_desc;
	char cwd[PROTO_PATH_MAX];
	size_t off = 0, len;
	int i, n = 0;

	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		snprintf(why, whysz, "working folder: %s", strerror(errno));
		return -1;
	}
	strlcpy(d->de_cwd, cwd, sizeof(d->de_cwd));
	strlcpy(d->de_user, msg_keyring_user_name(j->j_dc.dc_keys),
	    sizeof(d->de_user));
	d->de_pri = j->j_pri;
	d->de_max = j->j_max;
	if (argc > PROTO_ARGS_MAX) {
		snprintf(why, whysz, "%d arguments, over %d", argc,
		    PROTO_ARGS_MAX);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if ((len = strlen(argv[i])) >= PROTO_ARG_MAX) {
			snprintf(why, whysz, "argument %d (%.20s...) has %zu "
			    "bytes, over %d", i, argv[i], len,
			    PROTO_ARG_MAX - 1);
			return -1;
		}
		d->de_argv[d->de_argc++] = argv[i];
		off += (size_t)snprintf(j->j_command + off,
		    off < sizeof(j->j_command) ? sizeof(j->j_command) - off :
		    0, "%s%s", i ? " " : "", argv[i]);
		if (off >= sizeof(j->j_command))
			off = sizeof(j->j_command) - 1;
	}
	/*
	 * The user's environment travels with the job, as rsh's would; of
	 * ours only the owner-return policy, which the user signs with it.
	 */
	for (i = 0; environ[i] != NULL; i++) {
		if (strchr(environ[i], '=') == NULL || environ[i][0] == '=' ||
		    (strncmp(environ[i], "CILKNOW_", 8) == 0 &&
		    strncmp(environ[i], PROTO_OWNER_RETURN_ENV "=",
		    sizeof(PROTO_OWNER_RETURN_ENV)) != 0))
			continue;
		/* Ours come last: --cpus, --mem, CILKNOW_ATTEMPT. */
		if (n == PROTO_ARGS_MAX - 3) {
			snprintf(why, whysz, "the environment has over %d "
			    "entries", PROTO_ARGS_MAX - 3);
			return -1;
		}
		if ((len = strlen(environ[i])) >= PROTO_ARG_MAX) {
			snprintf(why, whysz, "environment entry %.*s has %zu "
			    "bytes, over %d", (int)(strcspn(environ[i], "=") <
			    40 ? strcspn(environ[i], "=") : 40), environ[i],
			    len, PROTO_ARG_MAX - 1);
			return -1;
		}
		d->de_env[n++] = environ[i];
	}
	/* What it asked for, signed: the node holds it to that. */
	if (j->j_cpus > 0) {
		snprintf(j->j_cpus_env, sizeof(j->j_cpus_env), "%s=%u",
		    PROTO_CPUS_ENV, j->j_cpus);
		d->de_env[n++] = j->j_cpus_env;
	}
	if (j->j_mem_mb > 0) {
		snprintf(j->j_mem_env, sizeof(j->j_mem_env), "%s=%u",
		    PROTO_MEM_ENV, j->j_mem_mb);
		d->de_env[n++] = j->j_mem_env;
	}
	d->de_envc = (uint16_t)n;
	j->j_envc = (uint16_t)n;
	/* Sign once now: a description that cannot be sent fails here. */
	snprintf(j->j_attempt_env, sizeof(j->j_attempt_env),
	    "CILKNOW_ATTEMPT=%u", (unsigned)UINT32_MAX);
	d->de_env[d->de_envc++] = j->j_attempt_env;
	if (proto_desc_seal(d, j->j_dc.dc_keys, j->j_buf,
	    sizeof(j->j_buf)) == 0) {
		snprintf(why, whysz, "the job description (command line, "
		    "working folder and environment) does not fit in %d "
		    "bytes", MSG_PAYLOAD_MAX);
		return -1;
	}
	return 0;
}

/*
 * A submission with no configuration would go to a broker on localhost
 * with keys nobody made: say so first, and fail as one that found no
 * broker does (DESIGN §11), rather than with a key error later.
 */
static void
require_conf(const struct daemon_args *da)
{
	const char *path = da->da_cc.cc_conf_path;

	if (path == NULL)
		path = conf_default_path();	/* CILKNOW_CONF, or /etc's */
	if (access(path, R_OK) == -1)
		errx(CLI_EXIT_TIMEOUT, "no configuration: %s: %s (-c FILE or "
		    "CILKNOW_CONF names one); nothing was submitted", path,
		    strerror(errno));
}

int
main(int argc, char *argv[])
{
	static struct jobmgr j;
	struct daemon_args da;
	struct dctx_spec sp = {
		.ds_prog = "CilkJobManager",
		.ds_keys = MSG_KR_USER,
		.ds_default_listen = "0.0.0.0",	/* without a route */
		.ds_listen_toward_broker = 1,	/* what it registers from */
		.ds_table = NULL,
		.ds_ntable = PROTO_H_MAX,
		.ds_check = check,
		.ds_no_pidfile = 1,	/* one per job, many per user */
		.ds_quiet_listen = 1,
		/* Read at start only: cilknow.conf(5), RELOAD. */
		.ds_restart = (const char *const[]){ "broker",
		    "register_interval", "timeout", NULL },
	};
	char why[OUTPAT_MAX + 256], desc_why[256];
	int rc;

	j.j_pri = 1;
	j.j_retries = TT_RETRIES_DEFAULT;
	j.j_detach_fd = -1;
	daemon_getopt(&da, argc, argv, "CilkJobManager",
	    "A:b:C:DE:G:I:M:m:O:p:R:T:t:W", opt, &j, usage);
	if (optind >= argc)
		usage(CLI_EXIT_USAGE);
	require_conf(&da);
	if ((rc = jobmgr_out_init(&j, why, sizeof(why))) != 0)
		errx(rc, "%s", why);
	if (j.j_detach && jobmgr_detach_fork(&j) == -1)
		err(1, "detach");
	sp.ds_table = jmafter_table();
	dctx_start(&j.j_dc, &sp, &da, &j);
	/* Detached, the terminal gets the job id or why not, no more. */
	if (j.j_detach)
		log_init(0, "CilkJobManager", da.da_cc.cc_verbose);
	if (msg_addr_parse(&j.j_broker, conf_get(j.j_dc.dc_conf, "broker"),
	    7410) == -1) {
		snprintf(why, sizeof(why), "bad broker address");
		daemon_fail(why);
		errx(1, "broker %s: bad or unknown address",
		    conf_get(j.j_dc.dc_conf, "broker"));
	}
	if (jobmgr_stage_prepare(&j) == -1) {
		daemon_fail("stage-in refused");
		exit(1);
	}
	if (describe(&j, argc - optind, argv + optind, desc_why,
	    sizeof(desc_why)) == -1) {
		daemon_fail("job description refused");
		errx(CLI_EXIT_USAGE, "%s; nothing was submitted", desc_why);
	}
	if ((j.j_tasks = calloc(TASKS_MAX, sizeof(*j.j_tasks))) == NULL ||
	    tt_init(&j.j_tt, (uint32_t)j.j_want_tasks,
	    (uint32_t)j.j_retries) == -1 || jobmgr_tasks_init(&j) == -1 ||
	    jmacct_init(&j) == -1)
		err(1, "calloc");
	j.j_interval = dctx_seconds(&j.j_dc, "register_interval", 60);
	j.j_timeout = dctx_seconds(&j.j_dc, "timeout", 3);
	j.j_started = now_mono();
	j.j_start_ms = now_real_ms();
	randombytes_buf(&j.j_boot, sizeof(j.j_boot));
	jobmgr_start(&j);
	if (!jmafter_hold(&j))
		jobmgr_go(&j);
	dctx_ready(&j.j_dc);
	if (dctx_run(&j.j_dc) == -1)
		log_warn("event loop");
	/*
	 * Interrupted: tell the broker, so every worker stops; before it
	 * answered, withdraw what it may have registered all the same.
	 */
	if (!j.j_ending && j.j_exit == 0) {
		if (j.j_job != 0)
			jobmgr_end(&j, 130, "interrupted");
		else
			jobmgr_withdraw(&j, 0);
		(void)dctx_run(&j.j_dc);
	}
	jobmgr_out_fini(&j);
	jmacct_drain(&j);	/* the history's last records */
	jmacct_free(&j);
	tt_free(&j.j_tt);
	free(j.j_tasks);
	free(j.j_cookie);
	dctx_stop(&j.j_dc);
	return j.j_exit;
}
