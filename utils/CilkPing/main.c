/* CilkPing — authenticated ping of any cilknow component. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "log.h"
#include "ping.h"

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkPing [-Fv] [-c file] [-o key=value] [-S scheme] "
	    "[-n count] [-s size]\n"
	    "                [-i interval] [-W wait] [-d seconds] "
	    "[-w window]\n"
	    "                [--clock-offset s] [--json] "
	    "addr[:port]\n"
	    "       CilkPing -l [-v] [-c file] [-o key=value] [-S scheme] "
	    "addr[:port]\n"
	    "  -l            answer pings on addr:port until interrupted\n"
	    "  -S scheme     cluster, user or raw (plain UDP, for baselines)\n"
	    "  -n count      pings to send (default 5; flood: unlimited)\n"
	    "  -s size       ping payload bytes, 16 to 65536 (default 64)\n"
	    "  -i interval   seconds between pings (default 0.2)\n"
	    "  -W wait       seconds to wait for the last reply (default: "
	    "timeout)\n"
	    "  -F            flood: keep pings in flight, for -d seconds\n"
	    "  -w window     flood: pings in flight (default %d; 1 is\n"
	    "                ping-pong, for round-trip times)\n"
	    "  -d seconds    flood duration (default 2)\n"
	    "  --clock-offset s  pretend our clock is s seconds off\n",
	    FLOOD_WINDOW);
	exit(status);
}

static double
number(const char *arg, const char *what, double min, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || !(v >= min && v <= max)) {
		warnx("%s: '%s' is not a number from %g to %g", what, arg,
		    min, max);
		usage(CLI_EXIT_USAGE);
	}
	return v;
}

int
main(int argc, char *argv[])
{
	enum { OPT_OFFSET = CLI_OPT_JSON + 1 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "clock-offset", required_argument, NULL, OPT_OFFSET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ping_opts o;
	struct conf *cf;
	double timeout = 3;
	int ch, rc;

	memset(&o, 0, sizeof(o));
	o.po_size = 64;
	o.po_interval = 0.2;
	o.po_wait = -1;
	o.po_duration = 2;
	o.po_window = FLOOD_WINDOW;
	while ((ch = getopt_long(argc, argv, "Fc:d:hi:ln:o:s:vS:Vw:W:",
	    longopts, NULL)) != -1) {
		switch (cli_common_opt(&o.po_cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
		}
		switch (ch) {
		case 'F':
			o.po_flood = 1;
			break;
		case 'd':
			o.po_duration = number(optarg, "-d", 0.01, 86400);
			break;
		case 'i':
			o.po_interval = number(optarg, "-i", 0, 3600);
			break;
		case 'l':
			o.po_listen = 1;
			break;
		case 'n':
			o.po_count = (long)number(optarg, "-n", 1, 1e9);
			break;
		case 's':
			o.po_size = (size_t)number(optarg, "-s",
			    MSG_PING_FIXED, MSG_PAYLOAD_MAX);
			break;
		case 'S':
			if (strcmp(optarg, "raw") == 0)
				o.po_scheme = PING_RAW;
			else if ((o.po_scheme =
			    msg_scheme_from_name(optarg)) == MSG_SCHEME_UNDEF) {
				warnx("-S: unknown scheme '%s' (cluster, "
				    "user or raw)", optarg);
				usage(CLI_EXIT_USAGE);
			}
			break;
		case 'w':
			o.po_window = (int)number(optarg, "-w", 1, 1024);
			break;
		case 'W':
			o.po_wait = number(optarg, "-W", 0.001, 3600);
			break;
		case OPT_OFFSET:
			o.po_clock_offset = number(optarg, "--clock-offset",
			    -1e6, 1e6);
			break;
		case 'h':
			usage(0);
		case 'V':
			cli_version("CilkPing");
			return 0;
		default:
			usage(CLI_EXIT_USAGE);
		}
	}
	if (argc - optind != 1)
		usage(CLI_EXIT_USAGE);
	o.po_target = argv[optind];
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium failed to initialise");
	log_init(1, "CilkPing", o.po_cc.cc_verbose);
	if ((cf = cli_conf_load(&o.po_cc, "CilkPing")) == NULL)
		return CLI_EXIT_USAGE;
	if (o.po_wait < 0) {
		(void)conf_get_seconds(cf, "timeout", &timeout);
		o.po_wait = timeout;
	}
	rc = o.po_listen ? ping_listen(&o, cf) : ping_send(&o, cf);
	conf_free(cf);
	return rc;
}
