/*
 * CilkRun — run a program that does not link the runtime on recruited
 * nodes.  It becomes the job's CilkJobManager in the foreground, so the
 * workers' output comes here and Ctrl-C ends the job everywhere.
 */
#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "stage.h"

#define ARGS_MAX	64

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkRun [-v] [-c file] [-o key=value] [-b broker] "
	    "[-n max] [-p priority]\n"
	    "               [--tasks N [--retries K]] [--owner-return policy] "
	    "[-t seconds]\n"
	    "               [--after JOB] [--output pattern] [--error "
	    "pattern] [--detach]\n"
	    "               [--stage-in file] [--stage-out glob] "
	    "[--cpus N] [--mem size]\n"
	    "               -- program [arg ...]\n"
	    "  -n max       useful workers at most\n"
	    "  -p priority  weight of the job's share (default 1)\n"
	    "  --tasks N    run tasks 0 to N-1 ($CILKNOW_TASK), each until "
	    "it exits 0\n"
	    "  --retries K  give a task up after K failures (default 3)\n"
	    "  --owner-return vacate|suspend=SECONDS\n"
	    "               when a node's owner returns: stop the worker "
	    "(default), or\n"
	    "               freeze it and go on if the node is idle again "
	    "in time\n"
	    "  --stage-in FILE   copy FILE (relative to here) to each task's "
	    "own folder\n"
	    "  --stage-out GLOB  copy the task folder's files matching GLOB "
	    "back,\n"
	    "                    into jJOB.tTASK/ here\n"
	    "  --cpus N     each task takes N of a node's lent processors "
	    "($CILKNOW_CPUS)\n"
	    "  --mem SIZE   each task needs SIZE of a node's lendable "
	    "memory (512M, 4G;\n"
	    "               MiB without a unit); it is held to both\n"
	    "  -t seconds   end after this long\n"
	    "  --output pattern  each task's stdout (and stderr, without "
	    "--error) in its\n"
	    "               own file: %%j job, %%t task, %%n node, %%%% a %%\n"
	    "  --error pattern   each task's stderr in its own file\n"
	    "  --detach     print the job id once the broker has it and "
	    "return; output\n"
	    "               goes to files (default cilknow-%%j-%%t.out)\n"
	    "  --after JOB  held until job JOB has ended successfully; "
	    "not run if it failed\n"
	    "Exit status: 0 all tasks done, 124 time limit, 130 interrupted,\n"
	    "143 ended by CilkKill, 3 the broker did not answer, 1 other "
	    "failures,\n2 usage; with --detach 0 once the broker has the "
	    "job.\n");
	exit(status);
}

int
main(int argc, char *argv[])
{
	enum { OPT_TASKS = CLI_OPT_JSON + 1, OPT_RETRIES, OPT_OWNER_RETURN,
	    OPT_OUTPUT = CLI_OPT_JSON + 40, OPT_ERROR, OPT_DETACH,
	    OPT_AFTER, OPT_STAGE_IN, OPT_STAGE_OUT, OPT_CPUS, OPT_MEM };
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, OPT_TASKS },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "owner-return", required_argument, NULL, OPT_OWNER_RETURN },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "error", required_argument, NULL, OPT_ERROR },
		{ "detach", no_argument, NULL, OPT_DETACH },
		{ "after", required_argument, NULL, OPT_AFTER },
		{ "stage-in", required_argument, NULL, OPT_STAGE_IN },
		{ "stage-out", required_argument, NULL, OPT_STAGE_OUT },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *args[ARGS_MAX + 2 * CLI_OVERRIDES_MAX + 1024];
	const char *errstr;
	char path[PATH_MAX + 32], why[128], mem[16];
	uint32_t mb;
	int ch, n = 0, i;

	(void)cli_find_program("CilkJobManager", path, sizeof(path));
	args[n++] = path;
	args[n++] = "-f";
	while ((ch = getopt_long(argc, argv, "+b:c:hn:o:p:t:vV", longopts,
	    NULL)) != -1) {
		if (n > ARGS_MAX + 2 * CLI_OVERRIDES_MAX)
			errx(CLI_EXIT_USAGE, "too many options");
		switch (ch) {
		case 'b':
		case 'c':
		case 'o':
		case 'p':
		case 't':
			args[n++] = ch == 'b' ? "-b" : ch == 'c' ? "-c" :
			    ch == 'o' ? "-o" : ch == 'p' ? "-p" : "-t";
			args[n++] = optarg;
			break;
		case 'n':
			(void)strtonum(optarg, 1, 1000000, &errstr);
			if (errstr != NULL)
				errx(CLI_EXIT_USAGE, "-n %s: %s", optarg,
				    errstr);
			args[n++] = "-m";
			args[n++] = optarg;
			break;
		case OPT_TASKS:
			args[n++] = "-T";
			args[n++] = optarg;
			break;
		case OPT_RETRIES:
			args[n++] = "-R";
			args[n++] = optarg;
			break;
		case OPT_AFTER:
			(void)strtonum(optarg, 1, UINT32_MAX, &errstr);
			if (errstr != NULL)
				errx(CLI_EXIT_USAGE, "--after %s: job number "
				    "is %s", optarg, errstr);
			args[n++] = "-A";
			args[n++] = optarg;
			break;
		case OPT_CPUS:
			(void)strtonum(optarg, 1, 256, &errstr);
			if (errstr != NULL)
				errx(CLI_EXIT_USAGE, "--cpus %s: processors "
				    "are %s (1 to 256)", optarg, errstr);
			args[n++] = "-C";
			args[n++] = optarg;
			break;
		case OPT_MEM:
			if (cli_mem_mb(optarg, &mb, why, sizeof(why)) == -1)
				errx(CLI_EXIT_USAGE, "--mem %s: %s", optarg,
				    why);
			snprintf(mem, sizeof(mem), "%u", mb);
			args[n++] = "-M";
			args[n++] = mem;
			break;
		case OPT_STAGE_IN:
		case OPT_STAGE_OUT:
			/* CilkJobManager(8) opens them: STAGING. */
			if (stage_name_ok(optarg, ch == OPT_STAGE_OUT, why,
			    sizeof(why)) == -1)
				errx(CLI_EXIT_USAGE, "--stage-%s %s: %s",
				    ch == OPT_STAGE_IN ? "in" : "out", optarg,
				    why);
			args[n++] = ch == OPT_STAGE_IN ? "-I" : "-G";
			args[n++] = optarg;
			break;
		case OPT_OWNER_RETURN:
			/* Signed with the job's environment: see proto.h. */
			if (strcmp(optarg, "vacate") != 0 &&
			    (strncmp(optarg, "suspend=", 8) != 0 ||
			    (strtonum(optarg + 8, 1, 86400, &errstr),
			    errstr != NULL)))
				errx(CLI_EXIT_USAGE, "--owner-return %s: not "
				    "vacate or suspend=SECONDS (1 to 86400)",
				    optarg);
			if (setenv("CILKNOW_OWNER_RETURN", optarg, 1) == -1)
				err(1, "setenv");
			break;
		case OPT_OUTPUT:
		case OPT_ERROR:
			/* Checked by the job manager (outpat.h). */
			args[n++] = ch == OPT_OUTPUT ? "-O" : "-E";
			args[n++] = optarg;
			break;
		case OPT_DETACH:
			args[n++] = "-D";
			break;
		case 'v':
			args[n++] = "-v";
			break;
		case 'h':
			usage(0);
		case 'V':
			cli_version("CilkRun");
			return 0;
		default:
			usage(CLI_EXIT_USAGE);
		}
	}
	if (optind >= argc)
		usage(CLI_EXIT_USAGE);
	if (argc - optind > 1000)
		errx(CLI_EXIT_USAGE, "too many arguments");
	args[n++] = "--";
	for (i = optind; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execvp(args[0], (char *const *)(uintptr_t)args);
	err(1, "%s", args[0]);
}
