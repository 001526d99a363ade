/* cli_opt — the option loop and the last word every utility shares. */
#include "cli.h"

#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

int
cli_getopt(struct cli_common *cc, int argc, char *const argv[],
    const char *optstring, const struct option *longopts, const char *prog,
    void (*usage)(int))
{
	int ch;

	while ((ch = getopt_long(argc, argv, optstring, longopts, NULL)) !=
	    -1) {
		switch (cli_common_opt(cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
			exit(CLI_EXIT_USAGE);
		}
		switch (ch) {
		case 'h':
			usage(CLI_EXIT_OK);
			exit(CLI_EXIT_OK);
		case 'V':
			cli_version(prog);
			exit(cli_stdout_done(CLI_EXIT_OK));
		case '?':
		case ':':
			usage(CLI_EXIT_USAGE);
			exit(CLI_EXIT_USAGE);
		default:
			return ch;
		}
	}
	return -1;
}

int
cli_stdout_done(int rc)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(CLI_EXIT_FAILURE, "stdout");
	return rc;
}
