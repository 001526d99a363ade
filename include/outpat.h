/*
 * outpat — the file name patterns of CilkRun --output and --error, as
 * sbatch(1) has them: %j the job id, %t the task number, %n the node's
 * host (without a processor's "/SLOT"), %% a %.  Any other % is an
 * error.  A pattern names a file relative to the submit folder (the
 * job manager's working folder) or an absolute path; the job manager
 * runs as the user and creates only what the user could.
 */
#ifndef CILKNOW_OUTPAT_H
#define CILKNOW_OUTPAT_H

#include <stddef.h>
#include <stdint.h>

#define OUTPAT_MAX	1024	/* bytes of a pattern and of a name */
/* --detach without --output: the job's output, as slurm-%j.out. */
#define OUTPAT_DETACH_DEFAULT	"cilknow-%j-%t.out"

/* 0 if pattern is usable, else -1 with why ("%x: unknown ..."). */
int	outpat_check(const char *pattern, char *why, size_t whylen);
/*
 * The file name for job, task, node into buf.  0, or -1 if the pattern
 * is bad or the name does not fit in bufsz (or OUTPAT_MAX).  A node
 * name's characters other than letters, digits, '.', '-' and '_'
 * become '_' (a host from the network never makes a folder).
 */
int	outpat_expand(const char *pattern, uint32_t job, uint32_t task,
	    const char *node, char *buf, size_t bufsz);
/* 1 if the pattern has %t (each task its own file), else 0. */
int	outpat_per_task(const char *pattern);

#endif
