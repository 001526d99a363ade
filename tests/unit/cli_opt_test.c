/* cli_opt_test — the option loop every utility shares. */
#include <sys/wait.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tap.h"

static const struct option longopts[] = {
	{ "json", no_argument, NULL, CLI_OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Says how it was called, by its exit status: 40 + status. */
static void __attribute__((noreturn))
usage(int status)
{
	exit(40 + status);
}

/* The exit status of a child that runs the loop over argv. */
static int
child(char **argv, int argc)
{
	struct cli_common cc;
	pid_t pid;
	int st;

	fflush(stdout);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL ||
		    freopen("/dev/null", "w", stderr) == NULL)
			_exit(99);
		memset(&cc, 0, sizeof(cc));
		optind = 1;
		while (cli_getopt(&cc, argc, argv, "b:c:hj:o:vV", longopts,
		    "prog", usage) != -1)
			;
		exit(7);
	}
	if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int
main(void)
{
	char *a1[] = { "prog", "-v", "-j", "5", "--json", "-o",
	    "timeout=2", "word", NULL };
	char *a2[] = { "prog", "-h", NULL };
	char *a3[] = { "prog", "--bogus", NULL };
	char *a4[] = { "prog", "-V", NULL };
	char *a5[] = { "prog", "-j", NULL };
	struct cli_common cc;
	int ch, own = 0;

	memset(&cc, 0, sizeof(cc));
	optind = 1;
	while ((ch = cli_getopt(&cc, 8, a1, "b:c:hj:o:vV", longopts, "prog",
	    usage)) != -1)
		if (ch == 'j' && strcmp(optarg, "5") == 0)
			own++;
		else
			own += 100;
	ok(own == 1, "only the utility's own option is returned (-j 5)");
	ok(cc.cc_verbose == 1 && cc.cc_json == 1 && cc.cc_noverrides == 1,
	    "the common ones are taken (-v, --json, -o)");
	ok(optind == 7 && strcmp(a1[optind], "word") == 0,
	    "the operands are left (optind %d)", optind);

	is_int(child(a2, 2), 40 + CLI_EXIT_OK, "-h: usage(0)");
	is_int(child(a3, 2), 40 + CLI_EXIT_USAGE, "an unknown option: usage(2)");
	is_int(child(a4, 2), CLI_EXIT_OK, "-V: the version, exit 0");
	is_int(child(a5, 2), 40 + CLI_EXIT_USAGE,
	    "a missing argument: usage(2)");
	return tap_done();
}
