/* CilkLocal — start, stop and inspect a whole cluster on this machine. */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "local.h"
#include "log.h"

enum local_cmd {
	LOCAL_CMD_UNDEF = 0,
	LOCAL_CMD_START,
	LOCAL_CMD_STOP,
	LOCAL_CMD_STATUS,
	LOCAL_CMD_MAX
};

/* Keys CilkLocal writes itself or gives each daemon: not for -o. */
static const char *const local_own_keys[] = {
	"broker", "cluster_key", "cluster_pub", "listen", "munge_socket",
	"run_dir", "sensors", "slots", "state_dir", "user_key", "user_keys",
};

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkLocal [-v] start -n nodes [-s slots] -d dir "
	    "[-p baseport]\n"
	    "                 [--auth munge|user] [-o key=value] ...\n"
	    "       CilkLocal [-v] stop -d dir\n"
	    "       CilkLocal [-v] status -d dir [--json]\n"
	    "  start   keys and config in dir, a broker on 127.0.0.1:baseport "
	    "(default %d)\n"
	    "          and node managers on 127.0.0.2 ... (port baseport+1),"
	    " 1 to %d nodes\n"
	    "  -s      processors each node lends (default 1, at most %d)\n"
	    "  --auth munge: users authenticate with a private munged in "
	    "dir/munge\n"
	    "  stop    stops the daemons, launch pads and workers of dir\n"
	    "  status  lists the daemons, whether they run and answer\n",
	    LOCAL_PORT_DEFAULT, LOCAL_NODES_MAX, LOCAL_SLOTS_MAX);
	exit(status);
}

/* -o KEY=VALUE: a key cilknow knows, a good value, not one of ours. */
static void
check_override(const char *kv)
{
	struct conf *cf;
	char key[64], why[256];
	size_t i, n = strcspn(kv, "=");

	snprintf(key, sizeof(key), "%.*s", (int)(n < sizeof(key) ? n :
	    sizeof(key) - 1), kv);
	key[strcspn(key, " \t")] = '\0';
	for (i = 0; i < sizeof(local_own_keys) / sizeof(local_own_keys[0]);
	    i++)
		if (strcmp(key, local_own_keys[i]) == 0) {
			warnx("-o %s: CilkLocal sets %s itself (use -d and "
			    "-p)", kv, key);
			usage(CLI_EXIT_USAGE);
		}
	if ((cf = conf_new()) == NULL)
		err(CLI_EXIT_FAILURE, "conf_new");
	if (conf_override(cf, kv, why, sizeof(why)) == -1) {
		warnx("-o %s: %s", kv, why);
		usage(CLI_EXIT_USAGE);
	}
	conf_free(cf);
}

/* -d: absolute and existing (start creates it). */
static void
set_dir(struct local *lo, const char *dir, int create)
{
	char real[PATH_MAX];

	if (*dir == '\0' || strchr(dir, '\n') != NULL) {
		warnx("-d: '%s' is not a usable folder name", dir);
		usage(CLI_EXIT_USAGE);
	}
	if (create && local_mkdirs(dir, 0755) == -1)
		err(CLI_EXIT_FAILURE, "%s", dir);
	if (realpath(dir, real) == NULL)
		err(CLI_EXIT_FAILURE, "%s", dir);
	/* Room for DIR/nodes/127.0.0.201/state/workers/W/lpad.pid. */
	if (strlen(real) > PATH_MAX - 256)
		errx(CLI_EXIT_USAGE, "%s: path too long", real);
	strlcpy(lo->lo_dir, real, sizeof(lo->lo_dir));
}

static long long
number(const char *arg, const char *what, long long min, long long max)
{
	const char *errstr;
	long long v = strtonum(arg, min, max, &errstr);

	if (errstr != NULL) {
		warnx("%s %s: %s (from %lld to %lld)", what, arg, errstr, min,
		    max);
		usage(CLI_EXIT_USAGE);
	}
	return v;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "auth", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct local lo;
	enum local_cmd cmd = LOCAL_CMD_UNDEF;
	const char *opts, *dir = NULL;
	int ch, rc;

	lo.lo_port = LOCAL_PORT_DEFAULT;
	while ((ch = getopt_long(argc, argv, "+hvV", longopts, NULL)) != -1)
		switch (ch) {
		case 'v':
			lo.lo_verbose++;
			break;
		case 'V':
			cli_version("CilkLocal");
			return CLI_EXIT_OK;
		case 'h':
			usage(CLI_EXIT_OK);
		default:
			usage(CLI_EXIT_USAGE);
		}
	if (optind >= argc)
		usage(CLI_EXIT_USAGE);
	if (strcmp(argv[optind], "start") == 0)
		cmd = LOCAL_CMD_START;
	else if (strcmp(argv[optind], "stop") == 0)
		cmd = LOCAL_CMD_STOP;
	else if (strcmp(argv[optind], "status") == 0)
		cmd = LOCAL_CMD_STATUS;
	else {
		warnx("%s: unknown command (start, stop or status)",
		    argv[optind]);
		usage(CLI_EXIT_USAGE);
	}
	opts = cmd == LOCAL_CMD_START ? "+d:hn:o:p:s:v" : "+d:hv";
	argc -= optind;
	argv += optind;
	optind = 0;
	while ((ch = getopt_long(argc, argv, opts, longopts, NULL)) != -1)
		switch (ch) {
		case 'd':
			dir = optarg;
			break;
		case 'n':
			lo.lo_nodes = (int)number(optarg, "-n", 1,
			    LOCAL_NODES_MAX);
			break;
		case 'o':
			if (lo.lo_nopts == LOCAL_OPTS_MAX) {
				warnx("too many -o options (at most %d)",
				    LOCAL_OPTS_MAX);
				usage(CLI_EXIT_USAGE);
			}
			check_override(optarg);
			lo.lo_opts[lo.lo_nopts++] = optarg;
			break;
		case 'p':
			lo.lo_port = (uint16_t)number(optarg, "-p", 1, 65534);
			break;
		case 's':
			lo.lo_slots = (int)number(optarg, "-s", 1,
			    LOCAL_SLOTS_MAX);
			break;
		case 'v':
			lo.lo_verbose++;
			break;
		case 'A':
			if (cmd != LOCAL_CMD_START ||
			    (strcmp(optarg, "munge") != 0 &&
			    strcmp(optarg, "user") != 0)) {
				warnx("--auth munge or --auth user, for start");
				usage(CLI_EXIT_USAGE);
			}
			lo.lo_munge = strcmp(optarg, "munge") == 0;
			break;
		case CLI_OPT_JSON:
			if (cmd != LOCAL_CMD_STATUS) {
				warnx("--json is for status");
				usage(CLI_EXIT_USAGE);
			}
			lo.lo_json = 1;
			break;
		case 'h':
			usage(CLI_EXIT_OK);
		default:
			usage(CLI_EXIT_USAGE);
		}
	if (optind != argc) {
		warnx("%s: unexpected argument", argv[optind]);
		usage(CLI_EXIT_USAGE);
	}
	if (dir == NULL) {
		warnx("-d dir is required");
		usage(CLI_EXIT_USAGE);
	}
	if (cmd == LOCAL_CMD_START && lo.lo_nodes == 0) {
		warnx("-n nodes is required (1 to %d)", LOCAL_NODES_MAX);
		usage(CLI_EXIT_USAGE);
	}
	log_init(1, "CilkLocal", lo.lo_verbose > 1);
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium failed to initialise");
	set_dir(&lo, dir, cmd == LOCAL_CMD_START);
	if (cmd == LOCAL_CMD_START)
		rc = local_start(&lo);
	else if (cmd == LOCAL_CMD_STOP)
		rc = local_stop(&lo);
	else
		rc = local_status(&lo);
	free(lo.lo_d);
	if (fflush(stdout) == EOF && errno != EPIPE)
		warn("stdout");
	return rc;
}
