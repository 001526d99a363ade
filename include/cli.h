/*
 * cli — what every program's main shares: the common options of
 * DESIGN.md §1 (-c, -o, -v, -b, --json) and loading the configuration.
 * For mains only: these print their errors to stderr.
 */
#ifndef CILKNOW_CLI_H
#define CILKNOW_CLI_H

#include <stdint.h>

#include "conf.h"

#define CLI_OVERRIDES_MAX	64

/* Exit codes of utilities. */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAILURE = 1,	/* the broker or node said no */
	CLI_EXIT_USAGE = 2,
	CLI_EXIT_TIMEOUT = 3	/* no answer within the timeout */
};

struct cli_common {
	const char	*cc_conf_path;	/* -c, else conf_default_path() */
	const char	*cc_overrides[CLI_OVERRIDES_MAX]; /* -o */
	int		 cc_noverrides;
	int		 cc_verbose;	/* -v, repeatable */
	const char	*cc_broker;	/* -b */
	int		 cc_json;	/* --json */
};

/*
 * Takes a common option (ch as getopt returned it: 'c', 'o', 'v', 'b',
 * or CLI_OPT_JSON).  1 if it was one, 0 if not, -1 on a bad argument
 * (message printed).
 */
#define CLI_OPT_JSON	0x100
int		 cli_common_opt(struct cli_common *, int ch, const char *arg);

/*
 * The configuration: the file (a missing default file is fine, a
 * missing -c file is not), then -o overrides, then -b.  Prints every
 * error; NULL on any.
 */
struct conf	*cli_conf_load(const struct cli_common *, const char *prog);
/* The same, every error a line to errs, "prog: " first unless NULL. */
struct conf	*cli_conf_load_to(const struct cli_common *, const char *prog,
		    FILE *errs);

/*
 * Where another cilknow program lives: $CILKNOW_SBIN if set; else beside
 * our own binary, or in ../sbin from it (build/bin -> build/sbin); else
 * on $PATH.  0 with the path in buf, or -1 if it was found nowhere (buf
 * then holds the bare name, for execvp).
 */
int		 cli_find_program(const char *name, char *buf, size_t bufsz);

/*
 * A job number given to option opt ('j' for -j): 1 .. UINT32_MAX, or 0
 * after a message naming the option.
 */
uint32_t	 cli_job_number(int opt, const char *arg);

/*
 * A memory size for --mem: a number of MiB, or with a suffix K, M, G or
 * T (powers of 1024; "512M", "4G"), rounded up to whole MiB.  0 with
 * the MiB in *mb (1 .. 2^30), or -1 with why.
 */
int		 cli_mem_mb(const char *text, uint32_t *mb, char *why,
		    size_t whysz);

/* Prints "prog cilknow VERSION" for -V. */
void		 cli_version(const char *prog);

/*
 * A utility's getopt_long() loop: takes the common options
 * (cli_common_opt), -h (usage(CLI_EXIT_OK)), -V (cli_version(), exit 0)
 * and an unknown option or missing argument (usage(CLI_EXIT_USAGE))
 * itself, and returns the next option that is the utility's own, or -1
 * at the end of the options.  usage is expected not to return.
 */
struct option;
int		 cli_getopt(struct cli_common *, int argc, char *const argv[],
		    const char *optstring, const struct option *longopts,
		    const char *prog, void (*usage)(int));
/*
 * rc, once stdout is flushed without error; else the program ends with
 * CLI_EXIT_FAILURE after saying so.  For a utility's last statement.
 */
int		 cli_stdout_done(int rc);

#endif
