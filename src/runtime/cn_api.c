/*
 * cn_api — cn_init and cn_run: which role this process plays (root,
 * worker, or alone), and the run itself.  The runtime's options live in
 * one file-level record because cn_init and cn_run are two calls of the
 * program's main (the library's only mutable state).
 */
#include "cn_rt.h"

#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "conf.h"
#include "mono.h"

static struct {
	int	 o_init;
	int	 o_worker;	/* -NoChouse */
	int	 o_alone;	/* -Alone */
	char	 o_recover[PATH_MAX];	/* -Recover=FILE */
	char	 o_host[256];
	uint16_t o_port;
	char	 o_conf[PATH_MAX];
	int	 o_argc;
	char	**o_argv;	/* the program's own arguments */
	char	**o_out;	/* the argv the program sees, kept */
} cn_opt;

int
cn_is_worker(void)
{
	return cn_opt.o_worker;
}

int
cn_init(int *argc, char ***argv)
{
	char **av = *argv, **out;
	const char *errstr, *s;
	int ac = *argc, i, n = 1;

	if ((out = calloc((size_t)ac + 1, sizeof(*out))) == NULL)
		return -1;
	out[0] = av[0];
	i = 1;
	if (ac > 1 && strcmp(av[1], "-Alone") == 0) {
		cn_opt.o_alone = 1;
		i = 2;
	} else if (ac > 1 && strncmp(av[1], "-Recover=", 9) == 0) {
		if (strlcpy(cn_opt.o_recover, av[1] + 9,
		    sizeof(cn_opt.o_recover)) >= sizeof(cn_opt.o_recover) ||
		    cn_opt.o_recover[0] == '\0')
			goto usage;
		i = 2;
	} else if (ac > 1 && strcmp(av[1], "-NoChouse") == 0) {
		cn_opt.o_worker = 1;
		for (i = 2; i < ac && strcmp(av[i], "--") != 0; i++) {
			if (strncmp(av[i], "-Host=", 6) == 0)
				strlcpy(cn_opt.o_host, av[i] + 6,
				    sizeof(cn_opt.o_host));
			else if (strncmp(av[i], "-Port=", 6) == 0) {
				cn_opt.o_port = (uint16_t)strtonum(av[i] + 6,
				    1, 65535, &errstr);
				if (errstr != NULL)
					goto usage;
			} else if (strncmp(av[i], "-Conf=", 6) == 0)
				strlcpy(cn_opt.o_conf, av[i] + 6,
				    sizeof(cn_opt.o_conf));
			else
				goto usage;
		}
		if (i == ac || cn_opt.o_host[0] == '\0' || cn_opt.o_port == 0)
			goto usage;
		i++;			/* the "--" */
	}
	/* Everything left is the program's; keep it for the workers too. */
	cn_opt.o_argc = ac - i;
	cn_opt.o_argv = av + i;
	for (; i < ac; i++)
		out[n++] = av[i];
	out[n] = NULL;
	*argc = n;
	*argv = out;
	cn_opt.o_out = out;
	if ((s = getenv("CILKNOW_ALONE")) != NULL && strcmp(s, "1") == 0)
		cn_opt.o_alone = 1;
	cn_opt.o_init = 1;
	return 0;
 usage:
	fprintf(stderr, "%s: usage: %s -NoChouse -Host=H -Port=P "
	    "[-Conf=F] -- [arg ...]\n       %s -Recover=FILE [arg ...]\n",
	    av[0], av[0], av[0]);
	free(out);
	return -1;
}

static void
ctx_init(struct cn_ctx *c, const struct cn_program *p)
{
	memset(c, 0, sizeof(*c));
	c->c_prog = p;
}

static void
ctx_fini(struct cn_ctx *c)
{
	free(c->c_frames);
	free(c->c_rec);
}

static void
stats_print(const struct cn_ctx *c, const struct cn_stats *st)
{
	const char *s = getenv("CILKNOW_STATS");

	if (s == NULL || strcmp(s, "1") != 0)
		return;
	fprintf(stderr, "%s: cilknow: %.3f s, %llu tasks here, %llu work "
	    "units, %llu migrated, %llu redone, %u workers at most%s\n",
	    c->c_prog->cp_name, st->cs_seconds,
	    (unsigned long long)c->c_tasks,
	    (unsigned long long)st->cs_global,
	    (unsigned long long)st->cs_migrated,
	    (unsigned long long)st->cs_reissued, st->cs_workers,
	    st->cs_alone ? " (alone)" : "");
	if (c->c_threads && !st->cs_alone)
		fprintf(stderr, "%s: cilknow: threads: %llu run, %llu closures "
		    "stolen, %llu steal attempts, %llu non-local sends, %llu "
		    "bytes moved, %llu workers lost, %llu closures re-run, "
		    "%llu late values dropped; %.3f s from the root thread's "
		    "start\n", c->c_prog->cp_name,
		    (unsigned long long)st->cs_threads_all,
		    (unsigned long long)st->cs_stolen,
		    (unsigned long long)st->cs_attempts,
		    (unsigned long long)st->cs_sends,
		    (unsigned long long)st->cs_bytes,
		    (unsigned long long)st->cs_lost,
		    (unsigned long long)st->cs_rerun,
		    (unsigned long long)st->cs_late, c->c_thread_secs);
}

/* The whole job in this process: no clearinghouse, no messages. */
static int
run_alone(struct cn_ctx *c, struct cn_stats *st)
{
	c->c_alone = 1;
	c->c_poll = NULL;
	(void)cn_local_run(c);
	st->cs_sum = c->c_pub.cp_sum;
	st->cs_alone = 1;
	st->cs_workers = 1;
	return 0;
}

/* Ends our clearinghouse (it ends the job manager), bounded. */
static void
chouse_reap(struct cn_ctx *c)
{
	int i;

	if (c->c_chouse_pid <= 0)
		return;
	for (i = 0; i < 1000; i++) {	/* it leaves by itself when done */
		if (waitpid(c->c_chouse_pid, NULL, WNOHANG) ==
		    c->c_chouse_pid)
			return;
		usleep(2000);
	}
	(void)kill(c->c_chouse_pid, SIGTERM);
	(void)waitpid(c->c_chouse_pid, NULL, 0);
}

/*
 * -Recover=FILE: what counted before the crash comes from the
 * checkpoint (its records to cp_record now, its sum with FINISH); the
 * clearinghouse pools what was left and we start as a thief.
 */
static int
recover_records(struct cn_ctx *c, const char *path)
{
	struct cn_frame *frames;
	const uint8_t *rec;
	uint8_t *img;
	int64_t sum;
	uint32_t n;
	size_t len, nrec;

	if ((img = cn_ckpt_read(path, &len)) == NULL ||
	    cn_ckpt_dec(img, len, &sum, &frames, &n, &rec, &nrec) == -1) {
		fprintf(stderr, "%s: cilknow: %s: %s\n", c->c_prog->cp_name,
		    path, img ? "not a checkpoint" : strerror(errno));
		free(img);
		return -1;
	}
	if (c->c_prog->cp_record != NULL)
		(void)cn_records_walk(rec, nrec, c->c_prog->cp_record,
		    c->c_prog->cp_arg);
	fprintf(stderr, "%s: cilknow: recovering from %s: sum %lld so far, "
	    "%u pieces left\n", c->c_prog->cp_name, path, (long long)sum, n);
	free(frames);
	free(img);
	return 0;
}

static int
run_root(struct cn_ctx *c, struct cn_stats *st)
{
	const char *conf = getenv("CILKNOW_CONF");
	const char *ckpt = getenv("CILKNOW_CHECKPOINT");
	const char *recover = NULL;
	char why[512], self[PATH_MAX];
	uint16_t port;
	ssize_t n;
	char **av;
	int rc, i;

	/*
	 * No configuration, no cluster: said first, and the program runs
	 * here as it would without a broker, not with a key error later.
	 */
	if (access(conf != NULL && *conf != '\0' ? conf :
	    conf_default_path(), R_OK) == -1) {
		fprintf(stderr, "%s: cilknow: no configuration: %s: %s "
		    "(CILKNOW_CONF names one); running on this workstation "
		    "alone\n", c->c_prog->cp_name, conf != NULL &&
		    *conf != '\0' ? conf : conf_default_path(),
		    strerror(errno));
		return run_alone(c, st);
	}
	/* Workers run the same binary: name it by its absolute path. */
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		strlcpy(self, "cilknow-program", sizeof(self));
	else
		self[n] = '\0';
	if ((av = calloc((size_t)cn_opt.o_argc + 2, sizeof(*av))) == NULL)
		return run_alone(c, st);
	av[0] = self;
	for (i = 0; i < cn_opt.o_argc; i++)
		av[i + 1] = cn_opt.o_argv[i];
	if (cn_opt.o_recover[0] != '\0' && c->c_threads) {
		fprintf(stderr, "%s: cilknow: a program of threads cannot be "
		    "recovered yet\n", c->c_prog->cp_name);
		free(av);
		errno = ENOTSUP;
		return -1;
	}
	if (cn_opt.o_recover[0] != '\0') {
		recover = cn_opt.o_recover;
		if (ckpt == NULL || *ckpt == '\0')
			ckpt = recover;	/* and on checkpointing there */
		if (recover_records(c, recover) == -1) {
			free(av);
			return -1;
		}
	}
	if (ckpt != NULL && *ckpt == '\0')
		ckpt = NULL;
	if (ckpt != NULL && c->c_threads) {
		fprintf(stderr, "%s: cilknow: a program of threads is not "
		    "checkpointed yet: CILKNOW_CHECKPOINT ignored\n",
		    c->c_prog->cp_name);
		ckpt = NULL;
	}
	rc = cn_start_chouse(conf, ckpt, recover, cn_opt.o_argc + 1, av,
	    &c->c_chouse_pid, &port, why, sizeof(why));
	free(av);
	/* It is on this workstation: loopback reaches it. */
	if (rc == 0)
		(void)msg_addr_parse(&c->c_chouse, "127.0.0.1", port);
	if (rc == -1 && recover != NULL) {
		fprintf(stderr, "%s: cilknow: cannot start a clearinghouse "
		    "(%s) to recover\n", c->c_prog->cp_name, why);
		return -1;
	}
	if (rc == -1 || cn_link_open(c, conf, why, sizeof(why)) == -1) {
		fprintf(stderr, "%s: cilknow: cannot start a clearinghouse "
		    "(%s); running on this workstation alone\n",
		    c->c_prog->cp_name, why);
		chouse_reap(c);
		cn_link_close(c);
		c->c_chouse_pid = 0;
		return run_alone(c, st);
	}
	c->c_ckpt = ckpt != NULL;
	c->c_last_flush = now_mono();
	(void)cn_home_open(c, ckpt, self, cn_opt.o_argc, cn_opt.o_argv);
	if (recover != NULL)
		c->c_lo = c->c_hi = 0;	/* the books hold the work */
	else {
		c->c_have_unit = 1;
		c->c_unit = c->c_attempt = 1;
	}
	rc = cn_link_run(c);
	*st = c->c_st;
	if (c->c_threads)
		cn_net_stats(c, st);
	chouse_reap(c);
	if (rc == 0)
		cn_home_done(c);	/* the checkpoint is gone too */
	cn_link_close(c);
	return rc;
}

static void __attribute__((noreturn))
run_worker(struct cn_ctx *c)
{
	char why[512], hostport[300];

	c->c_worker = 1;
	snprintf(hostport, sizeof(hostport), "%s", cn_opt.o_host);
	if (msg_addr_parse(&c->c_chouse, hostport, cn_opt.o_port) == -1) {
		fprintf(stderr, "%s: cilknow: clearinghouse host %s: "
		    "unknown\n", c->c_prog->cp_name, cn_opt.o_host);
		exit(1);
	}
	if (cn_link_open(c, cn_opt.o_conf[0] ? cn_opt.o_conf : NULL, why,
	    sizeof(why)) == -1) {
		fprintf(stderr, "%s: cilknow: cannot join the clearinghouse: "
		    "%s\n", c->c_prog->cp_name, why);
		exit(1);
	}
	(void)cn_link_run(c);
	exit(0);
}

/* A program of threads: its answer, or why there is none. */
static int
threads_result(struct cn_ctx *c, struct cn_stats *st)
{
	st->cs_threads = c->c_thread_threads;
	st->cs_closures = c->c_thread_closures;
	if (!c->c_thread_ran || c->c_thread_rc == -1) {
		fprintf(stderr, "%s: cilknow: %s\n", c->c_prog->cp_name,
		    c->c_thread_ran ? c->c_thread_why : "the root thread "
		    "did not run");
		errno = c->c_thread_ran && c->c_thread_err ? c->c_thread_err :
		    ENOMSG;
		return -1;
	}
	st->cs_answer = c->c_answer;
	st->cs_answer_len = c->c_answer_len;
	return 0;
}

static int
run(const struct cn_program *p, const struct cn_tprogram *tp, uint16_t fn,
    const void *arg, size_t len, struct cn_stats *out)
{
	static struct cn_ctx ctx;	/* large: buffers for messages */
	struct cn_ctx *c = &ctx;
	struct cn_stats st;
	double t0 = now_mono();
	int rc;

	if (!cn_opt.o_init || p == NULL || (tp != NULL ?
	    tp->tp_threads == NULL || fn >= tp->tp_nthreads ||
	    len > CN_VALUE_MAX : fn >= p->cp_nfns || len > CN_ARG_MAX)) {
		errno = EINVAL;
		return -1;
	}
	if (sodium_init() < 0)
		return -1;
	ctx_init(c, p);
	if (tp != NULL) {
		/* A worker too: its closures are this program's threads. */
		c->c_threads = 1;
		c->c_tprog = tp;
	}
	if (cn_opt.o_worker)
		run_worker(c);
	memset(&st, 0, sizeof(st));
	if (tp != NULL) {
		/* Its root runs here; the frame only says when. */
		c->c_threads = 1;
		c->c_tprog = tp;
		c->c_thread_fn = fn;
		c->c_thread_arg = arg;
		c->c_thread_len = len;
		c->c_root_frame.fr_fn = CN_FN_THREADS;
	} else {
		c->c_root_frame.fr_fn = fn;
		c->c_root_frame.fr_len = (uint16_t)len;
		memcpy(c->c_root_frame.fr_arg, arg, len);
	}
	if (cn_local_push(c, &c->c_root_frame) == -1)
		return -1;
	rc = cn_opt.o_alone ? run_alone(c, &st) : run_root(c, &st);
	if (c->c_threads && rc == 0)
		rc = threads_result(c, &st);
	st.cs_seconds = now_mono() - t0;
	stats_print(c, &st);
	if (out != NULL)
		*out = st;
	ctx_fini(c);
	return rc;
}

int
cn_run(const struct cn_program *p, uint16_t fn, const void *arg,
    size_t len, struct cn_stats *out)
{
	return run(p, NULL, fn, arg, len, out);
}

int
cn_run_thread(const struct cn_tprogram *tp, uint16_t fn, const void *arg,
    size_t len, struct cn_stats *out)
{
	/* The rest of the runtime names the program by its cn_program. */
	static struct cn_program p;

	if (tp == NULL) {
		errno = EINVAL;
		return -1;
	}
	p.cp_name = tp->tp_name != NULL ? tp->tp_name : "cilknow";
	return run(&p, tp, fn, arg, len, out);
}
