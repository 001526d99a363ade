/*
 * dcheck — what -n checks beyond parsing the configuration and loading
 * the keys: who may change the files the daemon trusts.  A key file, or
 * any folder above it, that someone other than root or us could
 * replace is as good as no key; so is a folder of users' public keys
 * that others can add to.  Every problem is reported, each as one line
 * "PATH: what is wrong; what to do".
 */
#ifndef CILKNOW_DCHECK_H
#define CILKNOW_DCHECK_H

#include <stddef.h>

#include "conf.h"

/* How grave a problem is: unsafe ones stop a daemon from starting. */
enum dcheck_level {
	DCHECK_UNDEF = 0,
	DCHECK_WARN,		/* -n fails; a starting daemon logs it */
	DCHECK_UNSAFE,		/* -n fails and the daemon refuses to start */
	DCHECK_MAX
};

typedef void	dcheck_report(enum dcheck_level, const char *msg, void *);

/*
 * Checks the cluster key file (when cluster is set), the cluster_pub
 * file if present, and the user_keys folder with its NAME.pub files.
 * Calls report for each problem; returns the gravest level found, or
 * DCHECK_UNDEF (0) when all is well.
 */
enum dcheck_level dcheck_files(const struct conf *, int cluster,
	    dcheck_report *, void *);

/*
 * One file or folder: owned by root or by us, not writable by group or
 * others, and the same for every folder above it (sticky folders such
 * as /tmp excepted).  Reports and returns as dcheck_files.
 */
enum dcheck_level dcheck_path(const char *path, const char *what,
	    dcheck_report *, void *);

#endif
