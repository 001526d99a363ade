/*
 * CilkLaunchPad — the per-worker job-control daemon: options, config,
 * spec, detach with a reporting pipe, set up, fork the worker, serve the
 * control socket until done.  The work is in src/lpad/lpad_pad.c.
 *
 * It keeps the privileges it was started with: only the worker becomes
 * the job's user, so nothing the job runs can signal, stop or trace
 * the process that polices it (DESIGN.md §9).
 */
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "conf.h"
#include "evloop.h"
#include "log.h"
#include "lpad.h"

#define LINGER_MAX	(7 * 24 * 3600)

/* The write end of the reporting pipe while we start, else -1. */
static int	report_fd = -1;
static int	foreground;	/* -f */
static int	print_pid;	/* -p */

static void	usage(int) __attribute__((noreturn));
static void	detach(void);
static void	ready(void);
static void	startup_fail(const char *) __attribute__((noreturn));
static int	read_spec(struct lpad_spec *, const char *, char *, size_t);

static void
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkLaunchPad [-fnpv] [-c file] [-o key=value] "
	    "[-L linger] -s specfile\n"
	    "  -s specfile   the worker to run (see CilkLaunchPad(8)); "
	    "- reads it\n"
	    "                from standard input\n"
	    "  -L linger     seconds to keep the exit status after the "
	    "worker ends\n"
	    "                (default %d)\n"
	    "  -f            stay in the foreground, log to stderr\n"
	    "  -n            check the configuration and spec, and exit\n"
	    "  -p            print our pid on stdout once ready\n",
	    LPAD_LINGER);
	exit(status);
}

/*
 * The spec from its file, or from standard input ("-": the node
 * manager's sealed memory file), which is then /dev/null again: the
 * worker inherits nothing of it.
 */
static int
read_spec(struct lpad_spec *sp, const char *path, char *why, size_t whysz)
{
	int null;

	if (strcmp(path, "-") != 0)
		return lpad_spec_read(sp, path, why, whysz);
	if (lpad_spec_read_fd(sp, STDIN_FILENO, why, whysz) == -1)
		return -1;
	if ((null = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(null, STDIN_FILENO) == -1) {
		snprintf(why, whysz, "/dev/null: %s", strerror(errno));
		lpad_spec_clear(sp);
		return -1;
	}
	if (null != STDIN_FILENO)
		close(null);
	return 0;
}

/*
 * Forks; the original process waits on a pipe until the daemon says it
 * is ready ('R' and its pid) or why it failed ('E' and the reason), and
 * exits 0 (printing the pid under -p) or 1, so a startup failure
 * reaches whoever started us.
 */
static void
detach(void)
{
	char buf[1024];
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int p[2];

	if (pipe2(p, O_CLOEXEC) == -1)
		err(1, "pipe");
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid > 0) {
		close(p[1]);
		while (len < sizeof(buf) - 1) {
			n = read(p[0], buf + len, sizeof(buf) - 1 - len);
			if (n == -1 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
		buf[len] = '\0';
		if (len > 0 && buf[0] == 'R') {
			if (print_pid)
				printf("%s\n", buf + 1);
			fflush(stdout);
			_exit(0);
		}
		fprintf(stderr, "CilkLaunchPad: %s\n", len > 1 ? buf + 1 :
		    "exited during startup");
		_exit(1);
	}
	close(p[0]);
	report_fd = p[1];
	if (setsid() == -1)
		startup_fail("setsid failed");
}

/* Startup is over: release the waiting parent, let go of the terminal. */
static void
ready(void)
{
	char msg[32];
	int fd, n;

	if (report_fd == -1) {
		if (print_pid) {
			printf("%ld\n", (long)getpid());
			fflush(stdout);
		}
		return;
	}
	n = snprintf(msg, sizeof(msg), "R%ld", (long)getpid());
	(void)write(report_fd, msg, (size_t)n);
	close(report_fd);
	report_fd = -1;
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(fd, 0);
		(void)dup2(fd, 1);
		(void)dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

static void
startup_fail(const char *msg)
{
	size_t len = strlen(msg);

	log_warnx("%s", msg);
	if (report_fd != -1) {
		(void)write(report_fd, "E", 1);
		(void)write(report_fd, msg, len);
	} else if (!foreground)
		fprintf(stderr, "CilkLaunchPad: %s\n", msg);
	exit(1);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_common cc;
	struct lpad_pad_args pa;
	struct lpad_spec spec;
	struct lpad_pad *pd;
	struct evloop *el;
	struct conf *cf;
	sigset_t none;
	char run_dir[LPAD_PATH_MAX], state_dir[LPAD_PATH_MAX], why[1024];
	const char *specfile = NULL, *errstr;
	int ch, fd, rc, check = 0;

	memset(&cc, 0, sizeof(cc));
	memset(&pa, 0, sizeof(pa));
	pa.pa_linger = LPAD_LINGER;
	while ((ch = getopt_long(argc, argv, "c:fhL:no:ps:vV", longopts,
	    NULL)) != -1) {
		switch (cli_common_opt(&cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
		default:
			break;
		}
		switch (ch) {
		case 'f':
			foreground = 1;
			break;
		case 'h':
			usage(0);
		case 'L':
			pa.pa_linger = strtonum(optarg, 0, LINGER_MAX, &errstr);
			if (errstr != NULL) {
				warnx("-L %s: %s (0 to %d seconds)", optarg,
				    errstr, LINGER_MAX);
				usage(CLI_EXIT_USAGE);
			}
			break;
		case 'n':
			check = 1;
			break;
		case 'p':
			print_pid = 1;
			break;
		case 's':
			specfile = optarg;
			break;
		case 'V':
			cli_version("CilkLaunchPad");
			return 0;
		default:
			usage(CLI_EXIT_USAGE);
		}
	}
	if (argc != optind || specfile == NULL)
		usage(CLI_EXIT_USAGE);

	/* Descriptors 0 to 2 must be taken, or our files could land there. */
	while ((fd = open("/dev/null", O_RDWR)) != -1 && fd <= 2)
		;
	if (fd > 2)
		close(fd);
	/* Whatever started us may have blocked signals we rely on. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);

	if ((cf = cli_conf_load(&cc, "CilkLaunchPad")) == NULL)
		return 1;
	if (conf_get_path(cf, "run_dir", run_dir, sizeof(run_dir)) == -1 ||
	    conf_get_path(cf, "state_dir", state_dir, sizeof(state_dir)) ==
	    -1 || conf_get_seconds(cf, "stop_grace", &pa.pa_stop_grace) == -1)
		errx(1, "run_dir, state_dir or stop_grace unusable");
	conf_free(cf);
	pa.pa_run_dir = run_dir;
	pa.pa_state_dir = state_dir;

	/* Errors from here on are logged, and told on stderr too. */
	log_init(foreground, "CilkLaunchPad", cc.cc_verbose);
	lpad_spec_init(&spec);
	if (read_spec(&spec, specfile, why, sizeof(why)) == -1)
		startup_fail(why);
	if ((pd = lpad_pad_new(&spec, &pa, why, sizeof(why))) == NULL)
		startup_fail(why);
	lpad_spec_clear(&spec);
	if (check) {
		fprintf(stderr, "configuration and spec OK\n");
		lpad_pad_free(pd);
		return 0;
	}
	if (chdir("/") == -1)
		startup_fail("chdir /");

	if (!foreground)
		detach();
	if (lpad_pad_setup(pd, why, sizeof(why)) == -1)
		startup_fail(why);
	if ((el = evloop_new()) == NULL || lpad_pad_attach(pd, el) == -1) {
		snprintf(why, sizeof(why), "event loop: %s", strerror(errno));
		lpad_pad_cleanup(pd);
		startup_fail(why);
	}
	if (lpad_pad_start(pd, why, sizeof(why)) == -1) {
		lpad_pad_cleanup(pd);
		startup_fail(why);
	}
	ready();

	rc = evloop_run(el);
	if (rc == -1)
		log_warn("event loop");
	lpad_pad_cleanup(pd);
	lpad_pad_free(pd);
	evloop_free(el);
	log_info("exiting");
	return rc == -1 ? 1 : 0;
}
